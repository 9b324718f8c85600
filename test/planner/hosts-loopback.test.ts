import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { SECOND_RUN_FROM, secondsPerRequestOf } from '../../shared/hosts';
import { createTestResolver } from '../../shared/net';
import type { SourceScheduleState } from '../../shared/schedule';
import { getSourceState } from '../../shared/store';
import type { SyncRuntime } from '../../shared/sync/compose';
import { parseSyncMessage, type SyncMessage } from '../../shared/sync/message';
import { runSyncMessage } from '../../shared/sync/run';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { plan } from '../support/sync-bed';
import { putActiveSource, startSyncRuntime } from '../support/sync-runtime';

/**
 * Issue 27's loopback case (RATE-9, SCH-5, RATE-1/2/4): six council systems on one host (127.0.0.1,
 * six ports — one host by RATE-2) and three on hosts of their own, all due at once, the default four
 * sync slots. The real planner tick against the local peers (dynalite, fauxqs) must start the three
 * lone hosts' syncs and one on the shared host; the real sync runtime (process-local slots, real clock)
 * then runs the four, and the shared host never sees two requests closer than 1 s.
 * The lone hosts are `lone-N.test` names the test resolver sends to loopback: the planner keys hosts by
 * name (`hostKey`), so three names are three hosts exactly as 127.0.0.2/3/4 would be (the fake council
 * listens on 127.0.0.1 only). The shared host's sources sort first (council-… before solo-…), so the
 * due list's order alone would give it all four slots, as on the code before RATE-9.
 */
describe('issue 27: one host, one budget — the first tick serves the idle hosts', () => {
  let bed: AwsTestbed;
  let runtime: SyncRuntime;
  const shared: FakeCouncil[] = [];
  const lone: FakeCouncil[] = [];
  /**
   * A small council: one body, OParl 1.0's four lists of one object — a run of seven paced requests
   * (robots.txt, system, bodies, four lists). Lists declared but missing would cost two requests each
   * (the filtered ask, then the unfiltered one), a second apiece on the shared host, and prove nothing here.
   */
  const small = (hostname?: string) =>
    startFakeCouncil({
      bodies: ['Gemeinde'],
      objectsPerList: 1,
      oparlVersion: '1.0',
      ...(hostname === undefined ? {} : { hostname }),
    });

  beforeAll(async () => {
    bed = await startAwsTestbed();
    for (let i = 1; i <= 6; i += 1) shared.push(await small());
    for (let i = 2; i <= 4; i += 1) lone.push(await small(`lone-${i}.test`));
    runtime = await startSyncRuntime(bed, { resolver: createTestResolver() });
    for (const [i, c] of shared.entries()) await putActiveSource(bed, `council-${i + 1}`, c.systemUrl);
    for (const [i, c] of lone.entries()) await putActiveSource(bed, `solo-${i + 2}`, c.systemUrl);
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await Promise.all([bed?.stop(), ...shared.map((c) => c.close()), ...lone.map((c) => c.close())]);
  });

  async function takeMessages(n: number): Promise<SyncMessage[]> {
    const out: SyncMessage[] = [];
    while (out.length < n) {
      const received = await bed.clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: bed.queues.syncQueueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      if ((received.Messages ?? []).length === 0) break;
      for (const raw of received.Messages ?? []) {
        out.push(parseSyncMessage(raw.Body ?? ''));
        await bed.clients.sqs.send(
          new DeleteMessageCommand({ QueueUrl: bed.queues.syncQueueUrl, ReceiptHandle: raw.ReceiptHandle }),
        );
      }
    }
    return out;
  }

  it('RATE-9 / SCH-5: four slots → the three lone hosts and one run on the shared host; the rest wait with the reason', async () => {
    expect(shared.every((c) => new URL(c.systemUrl).hostname === '127.0.0.1')).toBe(true);
    expect(new Set(shared.map((c) => new URL(c.systemUrl).port)).size).toBe(6);

    const tick = await plan(bed, new Date());
    const started = tick.started.map((s) => s.sourceId).sort();
    expect(started.filter((id) => id.startsWith('solo-'))).toEqual(['solo-2', 'solo-3', 'solo-4']);
    expect(started.filter((id) => id.startsWith('council-'))).toHaveLength(1);
    const waiting = tick.decisions.filter((d) => d.sourceId.startsWith('council-') && !d.started);
    expect(waiting).toHaveLength(5);
    for (const w of waiting) {
      expect(w.action).toBe('wait');
      expect(w.reason).toMatch(/host 127\.0\.0\.1 busy: 5 runs queued/);
    }
    expect(tick.hosts).toContainEqual(
      expect.objectContaining({ host: '127.0.0.1', queuedRuns: 5, sources: 6 }),
    );

    // The four runs, at once, as four sync invocations would run them; the arrival clock watched meanwhile.
    const messages = await takeMessages(4);
    expect(messages.map((m) => m.sourceId).sort()).toEqual(started);
    const loop = watchLoop();
    const results = await Promise.all(
      messages.map((m) => runSyncMessage(runtime.runDeps, m, { deadlineMs: Date.now() + 120_000 })),
    ).finally(() => loop.stop());
    expect(results.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(lone.every((c) => c.requests.length > 0)).toBe(true);

    // RATE-1/RATE-2: the shared host, across its six ports, never two requests closer than 1 s, measured
    // at the server. Its stamps come from this process's event loop, which the four runs keep busy: an
    // arrival is stamped late by as long as the loop was stalled before it (late is no breach; early
    // is). So each gap is the longest it can have been — from the earliest moment the earlier request can
    // have arrived (`loop.earliest`) to the later one's stamp — and a gap even that long under 1 s is a
    // request sent too early. On a quiet loop the bound is the stamp within a few ms; no fixed slack.
    const arrivals = shared.flatMap((c) => c.requests.map((r) => r.at)).sort((a, b) => a - b);
    expect(arrivals.length).toBeGreaterThan(2);
    for (let i = 1; i < arrivals.length; i += 1) {
      const latest = (arrivals[i] ?? 0) - loop.earliest(arrivals[i - 1] ?? 0);
      expect(
        latest,
        `gap ${i}: stamped ${(arrivals[i] ?? 0) - (arrivals[i - 1] ?? 0)} ms`,
      ).toBeGreaterThanOrEqual(RATE_1_INTERVAL_MS);
    }

    // The next tick: the finished run freed the shared host, which serves its queue with as many runs as
    // its pace keeps busy (RATE-9, RATE-4): one while its runs' learnt time per request is within
    // SECOND_RUN_FROM intervals; two — RATE-4's cap — when it is slower, as on a machine so loaded that
    // the run learnt 2.8 s a request. The slots keep RATE-1 either way; never more than two.
    const firstShared = started.find((id) => id.startsWith('council-')) as string;
    const item = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, firstShared);
    const perRequestSeconds = secondsPerRequestOf(item?.schedule);
    expect(perRequestSeconds).toBeGreaterThan(0);
    const runsItsPaceKeepsBusy =
      (perRequestSeconds ?? 0) * 1000 >= RATE_1_INTERVAL_MS * SECOND_RUN_FROM ? 2 : 1;
    const nextTick = await plan(bed, new Date());
    const nextShared = nextTick.started.map((s) => s.sourceId).filter((id) => id.startsWith('council-'));
    expect(nextShared, `learnt ${perRequestSeconds} s per request`).toHaveLength(runsItsPaceKeepsBusy);
  }, 120_000);
});

/** RATE-1: the pace of every source here (none sets a larger interval). */
const RATE_1_INTERVAL_MS = 1000;
/** How often the loop watch ticks: on a quiet loop an arrival's stamp is this exact (twice over). */
const WATCH_EVERY_MS = 5;

/**
 * Watches this process's event loop, the fake councils' arrival clock: a timer every WATCH_EVERY_MS
 * notes when it ran. A request stamped at `at` was read from its socket in the loop turn that stamped
 * it; its bytes came after the previous turn had polled the sockets, which was after the timer run
 * before the last one ahead of `at` (the last may have run in the stamping turn itself). So
 * `earliest(at)` is the earliest the request can have arrived: `at` minus the loop's stall before it.
 */
function watchLoop(): { earliest(at: number): number; stop(): void } {
  const beats: number[] = [performance.now()];
  const timer = setInterval(() => beats.push(performance.now()), WATCH_EVERY_MS);
  return {
    earliest(at) {
      let last = -1;
      while (last + 1 < beats.length && (beats[last + 1] ?? 0) < at) last += 1;
      return beats[Math.max(0, last - 1)] ?? 0;
    },
    stop: () => clearInterval(timer),
  };
}
