import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { parseSourceItem, salvageSourcePace } from '../../shared/config/source';
import { createHostIntervalIndex, HOST_INTERVAL_REFRESH_MS } from '../../shared/fetch-runtime';
import { hostIntervalsOf } from '../../shared/pace';
import { createHostSlots } from '../../shared/slots';
import { getSourceState } from '../../shared/store/source-state';
import { useAwsTestbed } from '../support/aws';
import { closeAfterEach, InstantClock, makeKit, ok, routes, startTestServer } from '../support/fetch-kit';
import { NOW, plan } from '../support/sync-bed';

closeAfterEach();

const HOST = 'ris-pace.test';

/**
 * Issue 13: an invalid Sources item must not loosen the shared pace of its host (RATE-2 "the largest
 * interval configured for any source on a hostname applies to every fetch to that hostname"; OPT-4
 * "with several sources on one server, a change applies to all of them").
 */
describe('RATE-2: a broken Sources item keeps counting for its host', () => {
  const bed = useAwsTestbed();
  const putSource = (item: Record<string, unknown>) =>
    bed.clients.doc.send(new PutCommand({ TableName: bed.env.SOURCES_TABLE, Item: item }));

  it('RATE-2 / OPT-4: the strict sibling set to 5 s, then broken in DynamoDB — the other source still fetches 5 s apart', async () => {
    // Prepare: two sources on one host, one slowed to 5 s; the planner sees both while they are valid.
    await putSource({
      sourceId: 'strict',
      systemUrl: `https://${HOST}/oparl/a`,
      active: true,
      requestIntervalSeconds: 5,
    });
    await putSource({ sourceId: 'sibling', systemUrl: `https://${HOST}/oparl/b`, active: true });
    await plan(bed, NOW);
    let clockMs = NOW.getTime();
    const index = createHostIntervalIndex(bed.clients, bed.env, () => clockMs);
    await index.refresh();
    expect(index.forSource('sibling')).toBe(5000);

    // Act: on-call breaks the strict item (a word where a number belongs); the index re-reads later.
    await putSource({
      sourceId: 'strict',
      systemUrl: `https://${HOST}/oparl/a`,
      active: true,
      requestIntervalSeconds: 'five',
    });
    expect(
      parseSourceItem({
        sourceId: 'strict',
        systemUrl: `https://${HOST}/oparl/a`,
        requestIntervalSeconds: 'five',
      }).ok,
    ).toBe(false);
    clockMs += HOST_INTERVAL_REFRESH_MS;
    await index.refresh();

    // Assess: the last valid 5 s (remembered in the strict source's State item) still rules the host …
    const state = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'strict');
    expect(state?.lastValidPace).toEqual({ host: HOST, requestIntervalSeconds: 5 });
    expect(index.forSource('sibling')).toBe(5000);
    expect(index.forHost(HOST)).toBe(5000);
    // A sync instance started after the break (cold, it never saw the valid item) agrees.
    const cold = createHostIntervalIndex(bed.clients, bed.env, () => clockMs);
    await cold.refresh();
    expect(cold.forSource('sibling')).toBe(5000);

    // … and the sibling's real fetches through the polite fetcher (real local slots, virtual clock)
    // arrive at the server 5 s apart, robots.txt included.
    const clock = new InstantClock(clockMs);
    const arrivals: number[] = [];
    const server = await startTestServer((req, res, call) => {
      arrivals.push(clock.now());
      return routes({ '/oparl/b': ok() })(req, res, call);
    });
    const kit = makeKit({ clock, slots: createHostSlots({ clock }) });
    const source = { sourceId: 'sibling', requestIntervalSeconds: 1 };
    const hostIntervalMs = cold.forSource('sibling');
    for (let i = 0; i < 2; i += 1) {
      await kit.fetcher.fetch(server.url('/oparl/b', HOST), {
        purpose: 'api',
        source,
        ...(hostIntervalMs ? { hostIntervalMs } : {}),
      });
    }
    await kit.close();
    await server.close();
    expect(arrivals).toHaveLength(3);
    const gaps = arrivals.slice(1).map((t, i) => t - (arrivals[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5000);
  });

  it('RATE-2: a broken item that states a slower interval by itself counts with it, even with no valid past', () => {
    const broken = {
      sourceId: 'never-valid',
      systemUrl: `https://${HOST}/x`,
      requestIntervalSeconds: '8',
      typo: 1,
    };
    const parsed = [
      parseSourceItem(broken),
      parseSourceItem({ sourceId: 'fine', systemUrl: `https://${HOST}/y`, active: true }),
    ];
    expect(parsed[0]?.ok).toBe(false);
    const pace = salvageSourcePace(broken);
    expect(pace).toEqual({ host: HOST, requestIntervalSeconds: 8 });
    const { byHostMs, hostOf } = hostIntervalsOf(parsed, new Map([['never-valid', pace ? [pace] : []]]));
    expect(byHostMs.get(HOST)).toBe(8000);
    expect(hostOf.get('fine')).toBe(HOST);
    // Clamped like a valid item (RATE-2: at most 30 s), and nothing is salvaged without a host.
    expect(salvageSourcePace({ ...broken, requestIntervalSeconds: 90 })?.requestIntervalSeconds).toBe(30);
    expect(salvageSourcePace({ ...broken, systemUrl: 'not a url' })).toBeUndefined();
  });
});
