import { beforeAll, describe, expect, it } from 'vitest';
import { hostsCommand } from '../../cli/commands/hosts';
import { statusCommand } from '../../cli/commands/status';
import type { LocalRuntime } from '../../cli/local/runtime';
import type { HostStatus, SourceStatus } from '../../shared/planner';
import { DEFAULT_SCHEDULE_SETTINGS, initialScheduleState } from '../../shared/schedule';
import { processHostLedger, resetProcessHostLedger } from '../../shared/slots';
import { patchSourceState } from '../../shared/store/source-state';
import { putSourceItem } from '../../shared/store/sources';
import { useAwsTestbed } from '../support/aws';
import { plan } from '../support/sync-bed';

/**
 * Issue 27 "Done when": `status` and `hosts` explain every waiting or stretched source (RATE-9, RATE-1/2/4,
 * SCH-5, FULL-3). A small fleet at 03:30 Berlin, inside the default full-sync window: a saturated hosting
 * host (thirty councils at 30 s a request), a busy host (two councils due at once, RATE-4: one run at a
 * time), a host whose window cannot carry all its full syncs tonight, and a free host. The commands run
 * on the local peers at that instant, through the store repositories as with `--aws`.
 */
const NOW = new Date('2026-11-30T02:30:00Z');
/** FULL-2: tonight's default window (03:00 Berlin) — a full sync already started in it is not due again. */
const TONIGHT_WINDOW = '2026-11-30T03:00:00+01:00';
const SATURATED = Array.from({ length: 30 }, (_, i) => `sat-${String(i).padStart(2, '0')}`);
const FULL = ['full-0', 'full-1', 'full-2', 'full-3'];

/** The lines of one entry (a source in `status`, a host in `hosts`): its head line and the indented ones below. */
function blockOf(text: string[], head: string): string {
  const at = text.findIndex((l) => l.startsWith(`${head}  `));
  expect(at, head).toBeGreaterThanOrEqual(0);
  const end = text.findIndex((l, i) => i > at && !l.startsWith('  '));
  return text.slice(at, end < 0 ? undefined : end).join('\n');
}

interface SeedOptions {
  intervalSeconds?: number;
  syncedMinutesAgo: number;
  fullDoneTonight: boolean;
  pause?: object;
}

/** A source on `systemUrl`, last synced `syncedMinutesAgo` before NOW (and tonight's full done, or paused). */
async function seedSource(
  bed: ReturnType<typeof useAwsTestbed>,
  sourceId: string,
  systemUrl: string,
  opts: SeedOptions,
) {
  await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
    sourceId,
    systemUrl,
    active: true,
    ...(opts.intervalSeconds === undefined ? {} : { requestIntervalSeconds: opts.intervalSeconds }),
  });
  const ended = new Date(NOW.getTime() - opts.syncedMinutesAgo * 60_000).toISOString();
  await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, sourceId, {
    schedule: {
      ...initialScheduleState(),
      lastSyncStartedAt: ended,
      lastSyncEndedAt: ended,
      ...(opts.fullDoneTonight ? { fullSyncLastWindowId: TONIGHT_WINDOW } : {}),
      ...(opts.pause === undefined ? {} : { failureStreak: 3, pause: opts.pause }),
    },
    dueAt: ended,
  });
}

describe('status and hosts name the reason of every waiting or stretched source (RATE-9)', () => {
  const bed = useAwsTestbed();
  const rt = (): LocalRuntime => ({ env: bed.env, clients: bed.clients, dataDir: '', close: async () => {} });

  const source = (sourceId: string, host: string, opts: SeedOptions) =>
    seedSource(bed, sourceId, `https://${host}/oparl/${sourceId}/system`, opts);

  it('RATE-9 / RATE-4 / FULL-3 / SCH-5: saturated, busy, full sync behind and free — each source says why', async () => {
    await source('free', 'ris.free.example', { syncedMinutesAgo: 90, fullDoneTonight: true });
    await source('busy-1', 'ris.busy.example', { syncedMinutesAgo: 95, fullDoneTonight: true });
    await source('busy-2', 'ris.busy.example', { syncedMinutesAgo: 90, fullDoneTonight: true });
    for (const id of SATURATED)
      await source(id, 'ris.saturated.example', {
        intervalSeconds: 30,
        syncedMinutesAgo: 1,
        fullDoneTonight: true,
      });
    for (const [i, id] of FULL.entries())
      await source(id, 'ris.full.example', {
        intervalSeconds: 30,
        syncedMinutesAgo: 90 + i,
        fullDoneTonight: false,
      });

    const status = await statusCommand(rt(), undefined, NOW);
    const text = status.text;

    // Free host: runs now, nothing holds it back.
    const free = blockOf(text, 'free');
    expect(free).toMatch(/^free {2}\[active\] {2}sync incremental/);
    expect(free).not.toMatch(/busy|saturated|behind/);

    // Busy host (RATE-4, RATE-9): the most overdue runs, the other says it waits for the host.
    expect(blockOf(text, 'busy-1')).toMatch(/sync incremental/);
    expect(blockOf(text, 'busy-2')).toMatch(
      /wait incremental[\s\S]*why: host ris\.busy\.example busy: 1 run queued; 1 of 1 run its pace keeps busy already \(RATE-9, RATE-4\)/,
    );

    // Saturated host: every source on it is stretched and says so with the host's numbers.
    for (const id of SATURATED)
      expect(blockOf(text, id)).toMatch(
        /host ris\.saturated\.example saturated: needs 0\.13 requests\/s of 0\.03; intervals × 4 \(RATE-9\)/,
      );

    // Full syncs on a host whose window cannot carry them: one runs (FULL-3's order), the others are
    // behind for lack of host capacity and say so.
    const fullRuns = FULL.filter((id) => /sync full/.test(blockOf(text, id)));
    expect(fullRuns).toHaveLength(1);
    for (const id of FULL.filter((x) => !fullRuns.includes(x)))
      expect(blockOf(text, id)).toMatch(/full sync behind: host capacity — host ris\.full\.example's window/);

    // Every source that waits or is stretched names its reason (none is left with a bare cadence line).
    const rows = (status.json as { sources: unknown }).sources as {
      sourceId: string;
      action: string;
      reason: string;
      hostSaturated: string | null;
    }[];
    for (const row of rows) {
      if (row.action !== 'wait' && row.hostSaturated === null) continue;
      expect(blockOf(text, row.sourceId), row.sourceId).toMatch(/busy|saturated|behind|slot|paused/);
    }

    // hosts: per host who waits for what — the queue of the busy host, the stretch, the full-sync backlog.
    const hosts = await hostsCommand(rt(), NOW);
    const lines = hosts.text.join('\n');
    expect(lines).toMatch(
      /ris\.busy\.example .*\n(?: {2}.*\n)*? {2}queued for the busy host \(RATE-9, RATE-4\): busy-2/,
    );
    expect(lines).toMatch(
      /ris\.saturated\.example {2}30 sources .*SATURATED: intervals × 4[\s\S]*? {2}stretched \(RATE-9\): every source here syncs at its interval × 4/,
    );
    expect(lines).toMatch(
      / {2}full syncs behind for host capacity \(next night, oldest first\): full-\d, full-\d, full-\d/,
    );
    const json = (hosts.json as { hosts: unknown }).hosts as {
      host: string;
      waiting: { sourceId: string; waitingFor: string }[];
    }[];
    expect(json.find((h) => h.host === 'ris.busy.example')?.waiting).toEqual([
      expect.objectContaining({ sourceId: 'busy-2', waitingFor: 'host' }),
    ]);
    expect(json.find((h) => h.host === 'ris.free.example')?.waiting).toEqual([]);
  }, 60_000);
});

/**
 * The audit of issue 27's "Done when" after a real planner tick (`plannerTick` on the local peers, at
 * NOW — 03:30 Berlin, in the default full-sync window): twenty council systems on 127.0.0.1, one port
 * each — one host by RATE-2 — at 30 s a request (saturated: RATE-9), two of them due for a full sync on
 * a host with no spare capacity (behind under FULL-3's budget whether the host's oldest full sync gets
 * its chance or not); two due councils on 127.0.0.2 (RATE-4: one run at a time); four due lone hosts
 * 127.0.0.3–6, more than the default four slots leave room for (SCH-5); one source spared after three
 * failed runs (ERR-4); one idle lone host, synced two minutes ago. The planner keys hosts by name, so
 * the addresses need no server: the tick only takes leases and enqueues.
 */
describe('after a planner tick, status and hosts explain every waiting, stretched or behind source (RATE-9)', () => {
  const bed = useAwsTestbed();
  const rt = (): LocalRuntime => ({ env: bed.env, clients: bed.clients, dataDir: '', close: async () => {} });
  const SHARED = Array.from({ length: 20 }, (_, i) => `shared-${String(i).padStart(2, '0')}`);
  /** Due for tonight's full sync, both on the saturated host (its spare capacity is 0). */
  const FULL_DUE = ['shared-00', 'shared-01'];
  const LONE = ['lone-3', 'lone-4', 'lone-5', 'lone-6'];

  const source = (sourceId: string, systemUrl: string, opts: SeedOptions) =>
    seedSource(bed, sourceId, systemUrl, opts);

  beforeAll(async () => {
    for (const [i, id] of SHARED.entries()) {
      const fullDue = FULL_DUE.includes(id);
      await source(id, `http://127.0.0.1:${8100 + i}/oparl/${id}/system`, {
        intervalSeconds: 30,
        syncedMinutesAgo: fullDue ? 90 + i : 1,
        fullDoneTonight: !fullDue,
      });
    }
    await source('busy-a', 'http://127.0.0.2:8081/oparl/system', {
      syncedMinutesAgo: 95,
      fullDoneTonight: true,
    });
    await source('busy-b', 'http://127.0.0.2:8082/oparl/system', {
      syncedMinutesAgo: 90,
      fullDoneTonight: true,
    });
    for (const [i, id] of LONE.entries())
      await source(id, `http://127.0.0.${3 + i}/oparl/system`, {
        syncedMinutesAgo: 83 + i,
        fullDoneTonight: true,
      });
    await source('paused', 'http://127.0.0.7/oparl/system', {
      syncedMinutesAgo: 300,
      fullDoneTonight: true,
      pause: {
        until: new Date(NOW.getTime() + 2 * 3_600_000).toISOString(),
        kind: 'failure-streak',
        minutes: 240,
        because: '3 failed runs in a row (ERR-4)',
        ruleIds: ['ERR-4'],
      },
    });
    await source('idle', 'http://127.0.0.8/oparl/system', { syncedMinutesAgo: 2, fullDoneTonight: true });
  }, 60_000);

  it("RATE-9 / SCH-5 / FULL-3 / RATE-1 / RATE-2 / RATE-4: each waiting, stretched or behind source has a line saying why, with its host's figures; the idle one has none", async () => {
    const tick = await plan(bed, NOW);
    // SCH-5: the default four slots are all taken, and the lone hosts are served beside the shared ones.
    expect(tick.started).toHaveLength(DEFAULT_SCHEDULE_SETTINGS.maxConcurrentSyncs);

    const status = await statusCommand(rt(), undefined, NOW);
    const hosts = await hostsCommand(rt(), NOW);
    const rows = (status.json as { sources: SourceStatus[] }).sources;
    const hostRows = (hosts.json as { hosts: HostStatus[] }).hosts;
    const row = (id: string) => rows.find((r) => r.sourceId === id) as SourceStatus;
    const host = (key: string) => hostRows.find((h) => h.host === key) as HostStatus;
    const said = (id: string) => blockOf(status.text, id);

    // RATE-1/RATE-2: twenty ports of 127.0.0.1 are one host; its pace is one request per its largest
    // interval (30 s), and the cadence of twenty councils asks more: saturated, stretched by one factor.
    const shared = host('127.0.0.1');
    expect(shared.sources).toEqual(SHARED);
    expect(shared.capacity).toBeCloseTo(1 / 30);
    expect(shared.saturated).toBe(true);
    // FULL-3 / RATE-9: in the window its two due full syncs take a share of its time (at most half), and
    // the incrementals' factor counts it: demand ÷ capacity ÷ (1 − share).
    const share = shared.fullSyncShare ?? 0;
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThanOrEqual(0.5);
    expect(shared.stretch).toBeCloseTo(shared.demand / shared.capacity / (1 - share));
    expect(shared.stretch).toBeGreaterThan(1);
    // RATE-9: every source on it says so, with the figures `hosts` shows for the host.
    const saturation = `host 127.0.0.1 saturated: needs ${round2(shared.demand)} requests/s of ${round2(shared.capacity)}, full syncs take ${Math.round(share * 100)} % of its time tonight (FULL-3); intervals × ${round2(shared.stretch)} (RATE-9)`;
    for (const id of SHARED) expect(said(id), id).toContain(saturation);
    expect(blockOf(hosts.text, '127.0.0.1')).toContain(
      `SATURATED: intervals × ${shared.stretch.toFixed(2)} (RATE-9)`,
    );

    // FULL-3 / RATE-9: no spare capacity on the host, two full syncs due — at least one is behind, and
    // each one behind says so in the issue's words; `hosts` lists the same ones as its backlog.
    const behind = FULL_DUE.filter((id) => row(id).fullSyncBehind !== null);
    expect(behind.length).toBeGreaterThanOrEqual(1);
    for (const id of behind)
      expect(said(id), id).toMatch(
        /full sync behind: host capacity — host 127\.0\.0\.1's window holds ~0 requests for full syncs.*next night, oldest first \(FULL-3, RATE-9; spare 0 requests\/s\)/,
      );
    expect(shared.fullSyncBacklog).toEqual(behind);
    expect(blockOf(hosts.text, '127.0.0.1')).toContain(
      `full syncs behind for host capacity (next night, oldest first): ${behind.join(', ')}`,
    );

    // RATE-4 / RATE-9: the busy host's second due council waits for it, with how many are queued.
    // Instants in one clock (Berlin, with offset): the lease ends after the run began.
    const [, since, leaseUntil] =
      said('busy-a').match(/running incremental since (\S+) \(lease until (\S+)\)/) ?? [];
    expect(since).toBe('2026-11-30T03:30:00+01:00');
    expect(leaseUntil).toMatch(/^2026-11-30T0\d:\d\d:00\+01:00$/);
    expect(Date.parse(leaseUntil ?? '')).toBeGreaterThan(NOW.getTime());
    expect(said('busy-b')).toContain(
      'why: host 127.0.0.2 busy: 1 run queued; 1 of 1 run its pace keeps busy already (RATE-9, RATE-4)',
    );
    expect(blockOf(hosts.text, '127.0.0.2')).toMatch(
      /runs 1 of 1 it keeps busy \(RATE-4\); 1 run queued\n[\s\S]* {2}running: busy-a \(incremental\)\n {2}queued for the busy host \(RATE-9, RATE-4\): busy-b/,
    );

    // SCH-5: the due lone hosts the slots do not reach wait for a slot — and say how many slots there are.
    const slotWaits = LONE.filter((id) => row(id).running === null);
    expect(slotWaits.length).toBeGreaterThanOrEqual(1);
    for (const id of slotWaits) {
      expect(said(id), id).toContain(
        `why: all ${DEFAULT_SCHEDULE_SETTINGS.maxConcurrentSyncs} sync slots busy (SCH-5)`,
      );
      expect(blockOf(hosts.text, row(id).host as string)).toContain(
        `waiting for a free sync slot (SCH-5): ${id}`,
      );
    }

    // ERR-4 / SCH-7: the spared source says until when and why — in status and on its host.
    expect(said('paused')).toMatch(/why: paused until 05:30 because of 3 failed runs in a row \(ERR-4\)/);
    expect(said('paused')).toContain('failed runs in a row: 3');
    expect(blockOf(hosts.text, '127.0.0.7')).toContain(
      'spared, not synced until their pause ends (SCH-7): paused — paused until 05:30 because of 3 failed runs in a row (ERR-4)',
    );

    // The idle source on a host with capacity: its cadence line, nothing else; its host just counts.
    expect(said('idle')).toMatch(
      /^idle {2}\[active\] {2}wait {2}next \S+\n {2}why: cadence: next incremental at/,
    );
    expect(said('idle').split('\n')).toHaveLength(2);
    expect(blockOf(hosts.text, '127.0.0.8').split('\n')).toHaveLength(3);
    expect(host('127.0.0.8')).toMatchObject({ saturated: false, stretch: 1, queuedRuns: 0, waiting: [] });

    // Every source: if it waits for anything but its own cadence, runs, is stretched or behind, its
    // status block says which — and its host's block in `hosts` names it (or stretches every source).
    const REASON = /busy|saturated|behind|slots|paused|running/;
    for (const r of rows) {
      const idle = r.sourceId === 'idle';
      expect(REASON.test(said(r.sourceId)), r.sourceId).toBe(!idle);
      if (idle) continue;
      const lines = blockOf(hosts.text, r.host as string)
        .split('\n')
        .filter((l) => !l.startsWith('  sources: '));
      const named =
        lines.some((l) => l.includes(r.sourceId)) || lines.some((l) => l.includes('stretched (RATE-9)'));
      expect(named, `${r.sourceId} on ${r.host}`).toBe(true);
    }
  }, 60_000);

  it('RATE-8 / RATE-9: a host paused by a Retry-After — its due source says until when, and hosts names it', async () => {
    // A lone host still waiting after the tick (SCH-5), then paused by a 503's Retry-After as the sync
    // instances' slots note it into this process's host ledger — the one local `status`/`hosts` read.
    const before = (await statusCommand(rt(), undefined, NOW)).json as { sources: SourceStatus[] };
    const waiting = before.sources.find((r) => LONE.includes(r.sourceId) && r.running === null);
    expect(waiting).toBeDefined();
    const { sourceId, host } = waiting as SourceStatus;
    try {
      await processHostLedger().noteFloor(host as string, { kind: 'pause', delayMs: 30 * 60_000 });
      const status = await statusCommand(rt(), undefined, NOW);
      expect(blockOf(status.text, sourceId)).toMatch(
        new RegExp(`why: host ${escaped(host as string)} paused until \\S+ \\(RATE-8\\): 1 run queued`),
      );
      const hosts = await hostsCommand(rt(), NOW);
      const block = blockOf(hosts.text, host as string);
      expect(block).toContain(`waiting for the paused host (RATE-8): ${sourceId}`);
      expect(block).toMatch(/ {2}paused until \S+ \(RATE-8 Retry-After\): no run starts/);
      expect(block).toMatch(/runs 0 of 0 it keeps busy \(RATE-4\)/);
    } finally {
      resetProcessHostLedger();
    }
  }, 60_000);
});

/** A host key as a literal in a RegExp. */
function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Two decimals, as the RATE-9 sentence rounds. */
function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
