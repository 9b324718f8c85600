import { describe, expect, it } from 'vitest';
import type { SourceConfig } from '../../shared/config';
import { MAX_OTHER_FETCH_SHARE, MIN_OTHER_FETCH_SHARE } from '../../shared/hosts';
import { createPreviewHostBudget, hostStatesReader } from '../../shared/preview';
import { DEFAULT_SCHEDULE_SETTINGS, type SourceScheduleState } from '../../shared/schedule';
import { LocalHostLedger } from '../../shared/slots';
import { loadAllSources, patchSourceState } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';
import { putActiveSource } from '../support/sync-runtime';

/**
 * Issue 27 (RATE-9, item 5): the preview judges the syncs' demand on a host with the figures the planner
 * uses — each source's expected requests and seconds per request learnt from its recent runs (its STATE
 * item) — not with a first run's defaults. Real State and Sources tables (dynalite); the host ledger is
 * the process-local one on the test's clock (the preview's ledger when no Redis is configured).
 */
describe('the preview judges the syncs on a host by their learnt figures (RATE-9)', () => {
  const bed = useAwsTestbed();
  /** Monday 10:00 Berlin: the weekday daytime cadence (SCH-1), every source due every 10 minutes. */
  const MONDAY_MORNING = new Date('2026-11-30T09:00:00Z');
  const HOST = 'ris-hosting.test';
  const HOSTED = Array.from({ length: 40 }, (_, i) => `hosted-${i}`);
  /** What each source's last runs asked of the host: 4 requests an incremental run, 1 s each. */
  const LEARNT: SourceScheduleState['recentRuns'] = Array.from({ length: 4 }, () => ({
    kind: 'incremental' as const,
    requests: 4,
    seconds: 4,
  }));

  async function budgetOf(learnt: boolean, reads: string[][]) {
    const ledger = new LocalHostLedger(() => MONDAY_MORNING.getTime());
    // A files pass used the host: other fetches above their minimum share, below their whole share.
    await ledger.recordOtherFetches(new Map([[HOST, 130]]));
    const inUse = (await ledger.read()).otherRequestsPerSecond.get(HOST) ?? 0;
    expect(inUse).toBeGreaterThanOrEqual(MIN_OTHER_FETCH_SHARE);
    expect(inUse).toBeLessThan(MAX_OTHER_FETCH_SHARE);
    const read = hostStatesReader({ doc: bed.clients.doc, table: bed.env.STATE_TABLE });
    return createPreviewHostBudget({
      ledger,
      settings: DEFAULT_SCHEDULE_SETTINGS,
      loadSources: async () =>
        (await loadAllSources(bed.clients.doc, bed.env.SOURCES_TABLE)).parsed.flatMap((p): SourceConfig[] =>
          p.ok ? [p.source] : [],
        ),
      ...(learnt
        ? {
            loadHostStates: (ids: readonly string[]) => {
              reads.push([...ids]);
              return read(ids);
            },
          }
        : {}),
    });
  }

  it('RATE-9 / RATE-1: forty councils whose runs ask 4 requests each leave room a first run’s 16 would not — the preview is admitted on their learnt figures', async () => {
    for (const sourceId of HOSTED) {
      await putActiveSource(bed, sourceId, `https://${HOST}/oparl/v1/system`);
      await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, sourceId, {
        schedule: { recentRuns: LEARNT, lastSyncEndedAt: MONDAY_MORNING.toISOString() },
      });
    }
    const reads: string[][] = [];
    // With a first run's figures (16 requests every 10 minutes each): 1.07 requests/s of 1 — refused.
    const blind = await (await budgetOf(false, reads)).admit(HOST, MONDAY_MORNING);
    expect(blind.allowed).toBe(false);
    expect(blind.reason).toContain('they need 1.07');
    // With the learnt figures (4 requests): 0.27 requests/s — the preview fits beside the syncs.
    const budget = await budgetOf(true, reads);
    const learnt = await budget.admit(HOST, MONDAY_MORNING);
    expect(learnt).toMatchObject({ allowed: true, ruleIds: ['RATE-9'] });
    expect(learnt.reason).toContain('syncs need 0.27');
    // One read of the host's states per TTL: the next preview on the host reads none.
    await budget.admit(HOST, MONDAY_MORNING);
    expect(reads.map((ids) => ids.length)).toEqual([HOSTED.length]);
  });
});
