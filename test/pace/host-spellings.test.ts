import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { changeSource } from '../../cli/commands/sources';
import type { LocalRuntime } from '../../cli/local/runtime';
import { createHostIntervalIndex } from '../../shared/fetch-runtime';
import { createHostSlots } from '../../shared/slots';
import { TakedownRegistry, tombstoneIds } from '../../shared/takedown';
import { useAwsTestbed } from '../support/aws';
import { closeAfterEach, InstantClock, makeKit, ok, routes, startTestServer } from '../support/fetch-kit';
import { takedownDepsOf } from '../support/takedown';

closeAfterEach();

/**
 * Issue 25 point 2: `https://ris.example.de./…` and `https://ris.example.de/…` are one host. One
 * normalisation (`hostKey`, shared/util: lower-cased, no port, no trailing dot, punycode) serves every
 * place that keys by host: RATE-2's host maximum, the robots.txt cache (ROB-5), host-wide settings
 * (`sources set`, OPT-4) and takedown ownership (OPT-5). Real peers: dynalite, a loopback HTTP server
 * reached through the polite fetcher (real process-local slots on a virtual clock).
 */
describe('hostname spellings are one host (issue 25)', () => {
  const bed = useAwsTestbed();
  const putSource = (item: Record<string, unknown>) =>
    bed.clients.doc.send(new PutCommand({ TableName: bed.env.SOURCES_TABLE, Item: item }));
  const runtime = (): LocalRuntime => ({
    env: bed.env,
    clients: bed.clients,
    dataDir: '',
    close: async () => undefined,
  });

  it('RATE-2 / ROB-5: one source at 5 s on `ris-dot.test.` — the sibling on `RIS-DOT.test` fetches 5 s apart, both spellings, and robots.txt is fetched once', async () => {
    await putSource({
      sourceId: 'dot-strict',
      systemUrl: 'https://ris-dot.test./oparl/a',
      active: true,
      requestIntervalSeconds: 5,
    });
    await putSource({ sourceId: 'dot-sibling', systemUrl: 'https://RIS-DOT.test/oparl/b', active: true });
    const clock = new InstantClock(Date.parse('2026-03-02T10:00:00Z'));
    const index = createHostIntervalIndex(bed.clients, bed.env, () => clock.now());
    await index.refresh();
    // Before issue 25 the sibling's host was `ris-dot.test`, the strict one's `ris-dot.test.`: 1 s.
    expect(index.forSource('dot-sibling')).toBe(5000);
    expect(index.forHost('ris-dot.test.')).toBe(5000);
    expect(index.forHost('RIS-DOT.test')).toBe(5000);

    const arrivals: { path: string; at: number }[] = [];
    const server = await startTestServer((req, res, call) => {
      arrivals.push({ path: new URL(req.url ?? '/', 'http://x').pathname, at: clock.now() });
      return routes({ '/oparl/b': ok() })(req, res, call);
    });
    const kit = makeKit({ clock, slots: createHostSlots({ clock }) });
    const source = { sourceId: 'dot-sibling', requestIntervalSeconds: 1 };
    const hostIntervalMs = index.forSource('dot-sibling');
    for (const host of ['ris-dot.test', 'ris-dot.test.', 'RIS-DOT.test', 'ris-dot.test.']) {
      await kit.fetcher.fetch(server.url('/oparl/b', host), {
        purpose: 'api',
        source,
        ...(hostIntervalMs ? { hostIntervalMs } : {}),
        // Other fetches reach a host through the index by its spelling in the URL (OTH-2).
        hostIntervalFor: (host: string) => index.forHost(host),
      });
    }
    await kit.close();
    await server.close();

    expect(arrivals.filter((a) => a.path === '/robots.txt')).toHaveLength(1);
    expect(arrivals.filter((a) => a.path === '/oparl/b')).toHaveLength(4);
    const gaps = arrivals.slice(1).map((a, i) => a.at - (arrivals[i] as { at: number }).at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5000);
  });

  it('OPT-4: `sources set` on the source spelled with a trailing dot reaches its sibling spelled in capitals, and back', async () => {
    await putSource({ sourceId: 'set-dot', systemUrl: 'https://ris.example-set.de./oparl/system' });
    await putSource({ sourceId: 'set-caps', systemUrl: 'https://RIS.Example-Set.de:443/oparl/b' });
    await putSource({ sourceId: 'set-other', systemUrl: 'https://other.example-set.de/oparl/system' });

    const set = await changeSource(runtime(), {
      sourceId: 'set-dot',
      set: ['requestIntervalSeconds=5'],
      only: false,
    });
    const back = await changeSource(runtime(), {
      sourceId: 'set-caps',
      set: ['fileFetching=false'],
      only: false,
    });

    expect(set.json).toMatchObject({ alsoUpdated: ['set-caps'] });
    expect(back.json).toMatchObject({ alsoUpdated: ['set-dot'] });
    const item = async (sourceId: string) =>
      (await bed.clients.doc.send(new GetCommand({ TableName: bed.env.SOURCES_TABLE, Key: { sourceId } })))
        .Item;
    expect(await item('set-caps')).toMatchObject({ requestIntervalSeconds: 5, fileFetching: false });
    expect(await item('set-dot')).toMatchObject({ requestIntervalSeconds: 5, fileFetching: false });
    expect(await item('set-other')).not.toHaveProperty('requestIntervalSeconds');
  });

  it('OPT-5: a takedown of an id spelled without the dot is recorded for the source whose systemUrl has it, and the other way round', async () => {
    await putSource({ sourceId: 'td-dot', systemUrl: 'https://ris.example-td.de./oparl/system' });
    await putSource({ sourceId: 'td-plain', systemUrl: 'https://ris.example-td2.de/oparl/system' });
    const ids = ['https://RIS.example-td.de/oparl/paper/1', 'https://ris.example-td2.de./oparl/paper/2'];

    const result = await tombstoneIds(takedownDepsOf(bed), ids, { by: 'test' });

    expect(result.registered).toEqual(ids);
    const registry = new TakedownRegistry(bed.clients.doc, bed.env.STATE_TABLE);
    expect((await registry.items('td-dot')).map((i) => i.id)).toEqual([ids[0]]);
    expect((await registry.items('td-plain')).map((i) => i.id)).toEqual([ids[1]]);
  });
});
