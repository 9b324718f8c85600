import { describe, expect, it } from 'vitest';
import { hostsCommand } from '../../cli/commands/hosts';
import { statusCommand } from '../../cli/commands/status';
import type { LocalRuntime } from '../../cli/local/runtime';
import { initialScheduleState } from '../../shared/schedule';
import { patchSourceState } from '../../shared/store/source-state';
import { putSourceItem } from '../../shared/store/sources';
import { useAwsTestbed } from '../support/aws';

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

describe('status and hosts name the reason of every waiting or stretched source (RATE-9)', () => {
  const bed = useAwsTestbed();
  const rt = (): LocalRuntime => ({ env: bed.env, clients: bed.clients, dataDir: '', close: async () => {} });

  async function source(
    sourceId: string,
    host: string,
    opts: { intervalSeconds?: number; syncedMinutesAgo: number; fullDoneTonight: boolean },
  ) {
    await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
      sourceId,
      systemUrl: `https://${host}/oparl/${sourceId}/system`,
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
      },
      dueAt: ended,
    });
  }

  /** The status command's lines of one source: its head line and the indented ones below it. */
  function blockOf(text: string[], sourceId: string): string {
    const at = text.findIndex((l) => l.startsWith(`${sourceId}  `));
    expect(at).toBeGreaterThanOrEqual(0);
    const end = text.findIndex((l, i) => i > at && !l.startsWith('  '));
    return text.slice(at, end < 0 ? undefined : end).join('\n');
  }

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
