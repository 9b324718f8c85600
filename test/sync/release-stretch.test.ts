import { beforeAll, describe, expect, it } from 'vitest';
import { initialScheduleState } from '../../shared/schedule';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState, patchSourceState } from '../../shared/store/source-state';
import { putSourceItem } from '../../shared/store/sources';
import { parseSyncMessage } from '../../shared/sync/message';
import { runSyncMessage } from '../../shared/sync/run';
import { loopbackFetcher } from '../support/oparl-harness';
import { deliver, NOW, oparlTestEngine, plan, runDepsOf, useSourceBed } from '../support/sync-bed';

/**
 * RATE-9 (issue 28's release): on a saturated host the planner's decision says the stretch ("host …
 * saturated …: next incremental at …"); a run's release records the wait at the run's end itself, and
 * recorded the plain cadence — so between the run's end and the planner's next look at the source,
 * `lastDecision` (on-call's `sources show`) said nothing of the stretch. Three councils on one host
 * (127.0.0.1, one host by RATE-2) at 30 s a request: saturated. A real planner tick, its message
 * through the real queue (fauxqs), the real run and release on the State table (dynalite), the council
 * on loopback.
 */
const SOURCES = ['stretch-a', 'stretch-b', 'stretch-c'];

describe('RATE-9: the release records the host’s stretch', () => {
  const { bed, council } = useSourceBed(...SOURCES);

  beforeAll(async () => {
    for (const [i, sourceId] of SOURCES.entries()) {
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId,
        systemUrl: council.systemUrl,
        active: true,
        requestIntervalSeconds: 30,
      });
      // Last synced an hour ago (the first one longest): all three are due at NOW.
      const ended = new Date(NOW.getTime() - (70 - i) * 60_000).toISOString();
      await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, sourceId, {
        schedule: { ...initialScheduleState(), lastSyncStartedAt: ended, lastSyncEndedAt: ended },
        dueAt: ended,
      });
    }
  });

  it('RATE-9: after a run on a saturated host, lastDecision says the stretch, as the planner says it', async () => {
    const tick = await plan(bed, NOW);
    const head = tick.started[0]?.sourceId ?? '';
    expect(SOURCES).toContain(head);
    const body = (await deliver(bed, head)).body;
    // The planner saw the host saturated and says so in the lane it handed the run.
    const stretch = parseSyncMessage(body).lane?.stretch;
    expect(stretch?.factor).toBeGreaterThan(1);

    const now = () => NOW;
    const result = await runSyncMessage(
      runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now),
      JSON.parse(body),
      {
        deadlineMs: Date.now() + 60_000,
        endsAtMs: Date.now() + 120_000,
      },
    );
    expect(result.status).toBe('done');
    const item = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, head);
    // The release decided the wait (not the planner): decided at the run's end.
    expect(item?.lastDecision).toMatchObject({ action: 'wait', decidedAt: NOW.toISOString() });
    expect(item?.lastDecision?.ruleIds).toEqual(expect.arrayContaining(['SCH-4', 'RATE-9']));
    expect(item?.lastDecision?.reason).toMatch(
      /host 127\.0\.0\.1 saturated: needs [\d.]+ requests\/s of 0\.03; intervals × [\d.]+ \(RATE-9\): next incremental at /,
    );
    // The due time stays the source's own wait: the planner looks then (and waits on to the stretched turn).
    const lookMs = Date.parse(item?.dueAt ?? '');
    const stretchedAt = /next incremental at (\S+) /.exec(item?.lastDecision?.reason ?? '')?.[1] ?? '';
    expect(lookMs).toBeGreaterThan(NOW.getTime());
    expect(lookMs).toBeLessThanOrEqual(Date.parse(stretchedAt));
  });
});
