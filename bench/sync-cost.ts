import { pathToFileURL } from 'node:url';
import { startFakeCouncil } from '../demo';
import { syncTablesFromEnv } from '../shared/engine';
import { createMemoryRobotsStore, createPoliteFetcher, createRunContext } from '../shared/fetch';
import { createGuardedAgent, createTestResolver } from '../shared/net';
import { politeFetcherPort, type SyncDeps, syncSource } from '../shared/oparl';
import { createHostSlots, PACE_MARGIN_MS } from '../shared/slots';
import { takedownGuards } from '../shared/takedown';
import { startAwsTestbed } from '../test/support/aws';
import { harness, TestClock, testSource } from '../test/support/oparl-harness';

/**
 * Sync-cost bench (issue 4): what a council server pays for our sync.
 *
 *   unchangedRequestsPerList   requests of an unchanged incremental sync ÷ lists asked (per-body
 *                              lists + the body list); goal 1.0 (SCH-8)
 *   changed[k]                 requests of an incremental sync after k objects changed
 *   pagesPerMinute             API pages per minute of a full sync through the real polite fetcher
 *                              (robots.txt, process-local slots at 1 req/s, real clock) against the
 *                              fake council on loopback; goal ≥ 59
 *
 * Local peers (dynalite, s3rver) stand in for DynamoDB and S3; their latency is part of the pace
 * figure, as Lambda → DynamoDB/S3 latency would be in AWS.
 */
export interface SyncCostOptions {
  bodies?: number;
  objectsPerList?: number;
  pageSize?: number;
  changedCounts?: number[];
  /** Pages of the paced full sync (its duration ≈ pages seconds). */
  pacedObjectsPerList?: number;
  log?: (line: string) => void;
}

export interface SyncCostResult {
  lists: number;
  unchangedRequests: number;
  unchangedRequestsPerList: number;
  changed: { k: number; requests: number; objects: { new: number; modified: number; deleted: number } }[];
  paced: {
    pages: number;
    seconds: number;
    pagesPerMinute: number;
    /** What the slots allow at all: one request per interval + their safety margin (shared/slots). */
    ceilingPagesPerMinute: number;
    /** pagesPerMinute ÷ ceiling: 1.0 = the engine adds nothing to the pace. */
    efficiency: number;
    fetcher: 'polite (process-local slots, 1 req/s)';
  };
}

export async function runSyncCostBench(opts: SyncCostOptions = {}): Promise<SyncCostResult> {
  const log = opts.log ?? (() => {});
  const bed = await startAwsTestbed();
  try {
    // 1. Unchanged and k-changed incremental syncs (counted at the engine's port).
    const clock = new TestClock(Date.parse('2024-07-01T10:00:00+02:00'));
    const fake = await startFakeCouncil({
      now: clock.now,
      bodies: opts.bodies ?? 2,
      objectsPerList: opts.objectsPerList ?? 12,
      pageSize: opts.pageSize ?? 5,
    });
    const changed: SyncCostResult['changed'] = [];
    let lists = 0;
    let unchangedRequests = 0;
    try {
      const h = harness(bed, fake.systemUrl, clock, 'bench');
      const full = await h.sync('full');
      log(`full sync: ${full.requests} requests, ${full.objects.new} objects`);
      clock.advance(10 * 60_000);
      const unchanged = await h.sync('incremental');
      lists = unchanged.lists.length + 1;
      unchangedRequests = unchanged.requests;
      log(`unchanged incremental: ${unchanged.requests} requests for ${lists} lists`);
      for (const k of opts.changedCounts ?? [1, 5, 20]) {
        clock.advance(10 * 60_000);
        const count = Math.min(k, opts.objectsPerList ?? 12);
        const rest = k - count;
        fake.mutate(
          Array.from({ length: count }, (_, i) => ({
            op: 'update' as const,
            list: 'paper' as const,
            n: i + 1,
            set: { name: `Bench ${k}/${i}` },
          })),
        );
        if (rest > 0) {
          fake.mutate(
            Array.from({ length: Math.min(rest, opts.objectsPerList ?? 12) }, (_, i) => ({
              op: 'update' as const,
              list: 'person' as const,
              n: i + 1,
              set: { familyName: `Bench ${k}/${i}` },
            })),
          );
        }
        clock.advance(60_000);
        const r = await h.sync('incremental');
        changed.push({ k, requests: r.requests, objects: r.objects });
        log(`${k} changed: ${r.requests} requests, ${JSON.stringify(r.objects)}`);
      }
    } finally {
      await fake.close();
    }

    // 2. Pages per minute through the polite fetcher at its real pace.
    const paced = await startFakeCouncil({
      hostname: 'ris-bench.test',
      bodies: 1,
      objectsPerList: opts.pacedObjectsPerList ?? 12,
      pageSize: 3,
    });
    const dispatcher = createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true });
    try {
      const fetcher = createPoliteFetcher({
        slots: createHostSlots(),
        robotsStore: createMemoryRobotsStore(),
        dispatcher,
        addressPolicy: { allowLoopback: true },
      });
      const source = testSource('bench-paced', paced.systemUrl);
      const deps: SyncDeps = {
        fetcher: politeFetcherPort({ fetcher, source, runContext: createRunContext(source.sourceId) }),
        clients: bed.clients,
        tables: syncTablesFromEnv(bed.env),
        takedowns: takedownGuards({
          clients: bed.clients,
          bucket: bed.env.BUCKET,
          stateTable: bed.env.STATE_TABLE,
        }),
        now: () => new Date(),
      };
      const report = await syncSource(deps, source, { kind: 'full', runId: 'bench-paced' });
      const arrivals = paced.requests.map((r) => r.epochMs);
      const first = arrivals[0] ?? 0;
      const last = arrivals[arrivals.length - 1] ?? 0;
      // n requests span n − 1 intervals; robots.txt takes its slot in the same pace.
      const seconds = (last - first) / 1000;
      const pagesPerMinute = seconds > 0 ? ((arrivals.length - 1) / seconds) * 60 : 0;
      const ceiling = 60_000 / (1000 + PACE_MARGIN_MS);
      log(`paced full sync: ${report.requests} pages + robots.txt in ${seconds.toFixed(1)} s`);
      return {
        lists,
        unchangedRequests,
        unchangedRequestsPerList: Number((unchangedRequests / lists).toFixed(3)),
        changed,
        paced: {
          pages: report.requests,
          seconds: Number(seconds.toFixed(2)),
          pagesPerMinute: Number(pagesPerMinute.toFixed(1)),
          ceilingPagesPerMinute: Number(ceiling.toFixed(1)),
          efficiency: Number((pagesPerMinute / ceiling).toFixed(3)),
          fetcher: 'polite (process-local slots, 1 req/s)',
        },
      };
    } finally {
      await paced.close();
      await dispatcher.close();
    }
  } finally {
    await bed.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runSyncCostBench({ log: (line) => console.error(line) });
  console.log(JSON.stringify(result));
}
