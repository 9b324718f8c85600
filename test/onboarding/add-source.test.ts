import { afterEach, describe, expect, it } from 'vitest';
import { type FakeCouncil, robotsScripts, startFakeCouncil } from '../../demo';
import type { FakeCouncilOptions } from '../../demo/types';
import { SyncStateStore } from '../../shared/engine';
import { addSource, listBodies, setBodyListed } from '../../shared/onboarding';
import { getSourceItem, putSourceItem } from '../../shared/store/sources';
import { useAwsTestbed } from '../support/aws';
import { makeFetchKit } from '../support/probe-kit';

describe('sources add (ONB-2, ONB-3, ONB-4)', () => {
  const bed = useAwsTestbed();
  const open: { close(): Promise<void> }[] = [];
  let n = 0;
  afterEach(async () => {
    await Promise.all(open.splice(0).map((o) => o.close()));
  });

  async function council(options: FakeCouncilOptions = {}): Promise<FakeCouncil> {
    n += 1;
    const c = await startFakeCouncil({ hostname: `ris-add${n}.test`, objectsPerList: 1, ...options });
    open.push(c);
    return c;
  }

  function deps(hostIntervalMs?: number) {
    const kit = makeFetchKit();
    open.push(kit);
    return {
      kit,
      deps: {
        doc: bed.clients.doc,
        tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
        fetcher: kit.fetcher,
        ...(hostIntervalMs !== undefined ? { hostIntervalMs: () => hostIntervalMs } : {}),
      },
    };
  }

  it('ONB-2 / ONB-3 / ONB-4: robots.txt, System, every body list page — then stored inactive, bodies unlisted', async () => {
    const c = await council({
      bodies: [
        { name: 'Stadt Köln', shortName: 'Köln' },
        { name: 'Kreis Köln', shortName: 'Köln' },
        { name: 'Gemeinde Weißenbrunn' },
      ],
      bodyPageSize: 2,
    });
    const { deps: d } = deps();
    const result = await addSource(d, { systemUrl: c.systemUrl, updatedBy: 'test' });

    expect(c.requests.map((r) => r.path)).toEqual([
      '/robots.txt',
      '/oparl/v1/system',
      '/oparl/v1/bodies',
      '/oparl/v1/bodies?page=2',
    ]);
    expect(result).toMatchObject({
      created: true,
      active: false,
      check: { ok: true, robots: 'allowed', bodyListPages: 2, bodiesComplete: true },
    });
    // The slug rule (shared/oparl bodySlugBase): shortName else name, ö → oe, ß → ss, unique per source.
    expect(result.bodies.map((b) => [b.slug, b.listed])).toEqual([
      ['koeln', false],
      ['koeln-2', false],
      ['weissenbrunn', false],
    ]);
    const item = await getSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, result.sourceId);
    expect(item).toMatchObject({ systemUrl: c.systemUrl, active: false });
    const state = new SyncStateStore({ doc: bed.clients.doc }, bed.env.STATE_TABLE, result.sourceId);
    expect(await state.getSystem()).toMatchObject({ systemUrl: c.systemUrl, bodyListUrl: c.bodyListUrl });
    expect((await state.getBodies()).every((b) => b.listed === false)).toBe(true);
  });

  it('ONB-3: adding an existing source changes nothing and fetches nothing', async () => {
    const c = await council();
    const { deps: d } = deps();
    const first = await addSource(d, { systemUrl: c.systemUrl, updatedBy: 'test' });
    await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
      ...((await getSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, first.sourceId)) as {
        systemUrl: string;
        sourceId: string;
      }),
      active: true,
    });
    c.clearRequests();
    const again = await addSource(d, { systemUrl: c.systemUrl, updatedBy: 'test' });
    expect(again).toMatchObject({ created: false, active: true, check: null });
    expect(c.requests).toEqual([]);
  });

  it('ONB-2 / ROB-8: robots.txt disallowing the API — only robots.txt is asked; stored inactive with the finding', async () => {
    const c = await council({ robots: robotsScripts.disallowIngestor });
    const { deps: d } = deps();
    const result = await addSource(d, { systemUrl: c.systemUrl, updatedBy: 'test', activate: true });
    expect(c.requests.map((r) => r.path)).toEqual(['/robots.txt']);
    expect(result).toMatchObject({
      created: true,
      active: false,
      check: { ok: false, robots: 'disallowed', code: 'ROBOTS_DISALLOWED' },
      bodies: [],
    });
    expect(result.notActivated).toMatch(/System/);
  });

  it('ONB-2 / SCH-8: at most 20 body list pages', async () => {
    const c = await council({ bodies: 23, bodyPageSize: 1 });
    const { deps: d } = deps();
    const result = await addSource(d, { systemUrl: c.systemUrl, updatedBy: 'test' });
    expect(c.requests.filter((r) => r.path.startsWith('/oparl/v1/bodies'))).toHaveLength(20);
    expect(result.check).toMatchObject({ ok: true, bodyListPages: 20, bodiesComplete: false });
    expect(result.bodies).toHaveLength(20);
  });

  it('ONB-2 / RATE-2: at the same pace — a slower source on the host sets the spacing of every request', async () => {
    const c = await council();
    const { deps: d, kit } = deps(5_000);
    await addSource(d, { systemUrl: c.systemUrl, updatedBy: 'test' });
    // robots.txt, System, body list: the 2nd and 3rd wait a whole 5 s slot (virtual time, no real wait).
    expect(c.requests).toHaveLength(3);
    expect(kit.clock.slotSleeps.length).toBe(2);
    for (const waited of kit.clock.slotSleeps) expect(waited).toBeGreaterThanOrEqual(4_900);
  });

  it('ONB-3: import --activate switches on only sources whose System was read', async () => {
    const good = await council();
    const { deps: d } = deps();
    const ok = await addSource(d, { systemUrl: good.systemUrl, updatedBy: 'test', activate: true });
    expect(ok).toMatchObject({ created: true, active: true });
    expect(ok.notActivated).toBeUndefined();
  });

  it('ONB-4: bodies list / unlist flips the flag on the body and on its documents only', async () => {
    const c = await council({ bodies: [{ name: 'Stadt Bonn', shortName: 'Bonn' }] });
    const { deps: d } = deps();
    const added = await addSource(d, { systemUrl: c.systemUrl, updatedBy: 'test' });
    const tables = {
      sources: bed.env.SOURCES_TABLE,
      state: bed.env.STATE_TABLE,
      documents: bed.env.DOCUMENTS_TABLE,
    };
    const listed = await setBodyListed(bed.clients.doc, tables, 'bonn', {
      listed: true,
      sourceId: added.sourceId,
      by: 'test',
    });
    expect(listed).toMatchObject({ listed: true, outcome: 'now-listed', documents: 0 });
    const again = await setBodyListed(bed.clients.doc, tables, 'bonn', {
      listed: true,
      sourceId: added.sourceId,
      by: 'test',
    });
    expect(again.outcome).toBe('already-listed');
    const rows = await listBodies(bed.clients.doc, tables, added.sourceId);
    expect(rows).toEqual([expect.objectContaining({ slug: 'bonn', listed: true, sourceId: added.sourceId })]);
    await setBodyListed(bed.clients.doc, tables, 'bonn', {
      listed: false,
      sourceId: added.sourceId,
      by: 'test',
    });
    expect((await listBodies(bed.clients.doc, tables, added.sourceId))[0]?.listed).toBe(false);
    await expect(
      setBodyListed(bed.clients.doc, tables, 'no-such-body', {
        listed: true,
        sourceId: added.sourceId,
        by: 'test',
      }),
    ).rejects.toMatchObject({ code: 'BODY_NOT_FOUND' });
  });
});
