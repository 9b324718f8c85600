import {
  FUNCTION_MEMORY_MB,
  SYNC_EVENT_SOURCE_MEMORY_MB,
  SYNC_MALLOC,
  SYNC_PLANNER_WORKER,
} from '../../infra/function-sizes';
import { FILES_TO_GLACIER_IR_MIN_BYTES } from '../../infra/storage-classes';
import { DEL_HOSTS_IN_PARALLEL, FILES_HOSTS_IN_PARALLEL, HOSTS_IN_PARALLEL } from '../../shared/documents';
import { WORKER_RUNS_AT_ONCE } from '../../shared/sync';
import { GLACIER_IR_MIN_BILLABLE_BYTES } from './file-sizes';

/**
 * The switches the cost bench bills with (issue 28): what the code does now, and each lever's
 * before/after. Levers marked `built: false` are what-ifs: the bench bills what they would save, the
 * code does not do them. The per-list digest is built: its off and on are two measured nightly full
 * syncs (bench/cost.ts). The sync worker is built: its on side is bench/cost/worker-model.ts over the
 * bill's own run stream, its off side the batch-per-invocation model before it.
 */
export interface Levers {
  /** The council's answer time in a run's wall time (the corrected model; off = the model before). */
  latency: boolean;
  /** Servers the deletion check asks at once. */
  deletionServersAtOnce: number;
  /** File copies older than the transition age in Glacier Instant Retrieval. */
  storageClasses: boolean;
  /**
   * Issue 28: the smallest file copy the Glacier IR rule moves (bytes): S3's default without a filter
   * is 128 KiB; the rule's `ObjectSizeGreaterThan` (infra/storage-classes.ts) sets it.
   */
  glacierIrMinBytes: number;
  /** A full sync reads one digest per list instead of an index read per object (measured both ways). */
  listDigest: boolean;
  /** Only the metrics an alarm reads are custom metrics; the dashboard reads the rest from logs. */
  metricsOnlyAlarmed: boolean;
  /** The sync worker (shared/sync/worker.ts): runs of distinct hosts share few refilling invocations. */
  payPerWork: boolean;
  /** The sync function's memory (MB): its bill is ∝ memory, its CPU work stretches below 1,769 MB. */
  syncMemoryMb: number;
  /** Runs one sync invocation keeps in flight (WORKER_RUNS_AT_ONCE; the sizing sweep varies it). */
  syncRunsAtOnce: number;
  /**
   * Issue 28 (function memory): the sync's glibc malloc with a fixed mmap threshold (SYNC_MALLOC's
   * environment): its import holds ≈ 14 MB less, each run's CPU costs SYNC_MALLOC.cpuFactor as much.
   */
  syncMallocMmap: boolean;
  /**
   * The planner's handout spreads a tick's sync messages over this many seconds (SQS DelaySeconds), so
   * they reach live workers one after another instead of as one burst (0: one burst).
   */
  syncSpreadSeconds: number;
  /**
   * The sync event source's maximum concurrency from the runs in flight (infra/sync-concurrency.ts: 1.5
   * × Little's mean ÷ the worker's width, at least SQS's 2, the deploy's `syncRunsInFlight`) instead of
   * SCH-5's slots ÷ the width — a tick's burst waits in the queue for the live workers instead of
   * opening invocations of its own.
   */
  syncCapFromMean: boolean;
  /**
   * Who starts the sync's invocations: the SQS event source (its maximum concurrency at least SQS's 2,
   * its pollers opening invocations beside the live workers), or the planner's tick — as many workers
   * as the runs in flight and queued need (⌈n ÷ width⌉) less those alive, each receiving from the queue
   * itself until it holds nothing (bench/cost/worker-model.ts `trigger`).
   */
  syncTrigger: 'eventSource' | 'planner';
  /**
   * What-if: a source's STATE item under 1 KB while leased, also with a full sync in its history — each
   * of a run's lease, claim and release writes then 1 unit instead of 2. Built so far (issue 28): the
   * `byDueAt` copies are small (it projects what the planner reads) and the last run has
   * its own item; the item is ≈ 835 B released, ≈ 1,046 B leased and claimed (the start's decision,
   * ≈ 175 B, is the next thing to move out).
   */
  stateUnderOneKb: boolean;
  /**
   * Issue 28: an unchanged incremental run writes no run cursor at its end (its one write, `PutItem
   * CURSOR` / `PutItem SCRAPE`). Built for the scraper's runs (`unchangedScrapeCursor`: both measured,
   * shared/scraper engine.ts); the OParl runs' too is a what-if (`unchangedRunCursor`).
   */
  unchangedCursorSkipped: 'none' | 'scraper' | 'both';
  /**
   * The deletion check's sample walk (shared/documents sample-walk.ts): an unchanged sample writes no
   * document, only its body's cursor once a run (off: every sample moved the document's index key).
   */
  deletionWalk: boolean;
  /**
   * The sync run's CPU as cut in issue 28's sync-CPU pass (a page parsed once, `modified` read without
   * luxon, a cursor packed once …; off: the engine's CPU measured before, at fffa3b8) — both measured
   * with `npm run bench -- sync-cpu`, assumptions.ts `syncCpuSecondsPerRun…`.
   */
  syncCpuCuts: boolean;
  /**
   * Issue 28: DynamoDB's capacity mode — every table on-demand, or each as the load profile decides by
   * cost (bench/cost/dynamo-capacity.ts: provisioned with auto scaling where it pays).
   */
  dynamoCapacity: 'onDemand' | 'decided';
  /**
   * Issue 28: the mirror's object items and their `byList` copies in the Mirror table (Standard-IA, no
   * PITR; shared/store tables.ts MIRROR_TABLE) instead of State (Standard, PITR). Built.
   */
  mirrorTable: boolean;
  /**
   * Issue 28: the files pass billed with its CPU measured (`npm run bench -- files-cost`: 0.08 s a file,
   * the download a wait inside the host's slot, and 0.009 s a source every hourly run — the loads, not
   * billed before) instead of the assumed 1.5 s of work a file.
   */
  filesCpuMeasured: boolean;
  /** Servers the files pass downloads from at once (FILES_HOSTS_IN_PARALLEL; each server's files in turn). */
  filesHostsAtOnce: number;
  /**
   * Issue 28: State's `byList` index deleted once the mirror's items have left State (`-c mirrorTable=
   * ownDropped`, after `migrate mirror-table --delete-old`): off, it stays, empty, at its provisioned
   * floor of 1 RCU and 1 WCU. Only with `mirrorTable` (before the move State's index is the list index).
   */
  stateListIndexDropped: boolean;
  /**
   * Issue 28: the mirror API's bytes a response as measured (`npm run bench -- api-bytes`: a list page
   * compressed as CloudFront serves it, assumptions.ts `apiWire`) instead of the assumed 20,000 B —
   * a correction of the model, no code.
   */
  apiBytesMeasured: boolean;
  /**
   * What-if (issue 28): the preview's stored copies served through its CloudFront distribution (origin
   * access control to the bucket) instead of a redirect to a presigned S3 URL — the bytes billed at
   * CloudFront's price instead of S3's internet egress, one more CloudFront request a visit, and the S3
   * GETs and Glacier IR retrievals only on CloudFront's misses (assumptions.ts `previewCdnHitShare`).
   */
  previewViaCdn: boolean;
  /** What-if (issue 28): the distribution on the cheapest covering CloudFront flat-rate plan (model.ts). */
  cloudFrontFlatRate: boolean;
  /**
   * Issue 28: the sync workers on provisioned concurrency — none (`off`), or the count the worker
   * model's distribution of workers alive makes cheapest at list price (bench/cost/provisioned.ts;
   * infra/sync-provisioned.ts holds it per fleet size, `-c syncProvisioned=…`).
   */
  syncProvisioned: 'off' | 'decided';
}

/**
 * What-if (issue 28, "the sync pays for work, not for bursts"): the planner's handout delays message i of
 * a tick's n by ⌊i × 55 ÷ n⌋ s (SQS DelaySeconds), so every run still starts inside its tick's minute
 * (the planner ticks every 60 s) but the messages reach the queue one after another.
 */
export const SYNC_SPREAD_WHAT_IF_SECONDS = 55;

/** The sync's size before issue 28 (2× an estimated peak, infra/function-sizes.ts). */
export const SYNC_MEMORY_MB_BEFORE = 512;

export const LEVERS_NOW: Levers = {
  latency: true,
  deletionServersAtOnce: DEL_HOSTS_IN_PARALLEL,
  storageClasses: true,
  glacierIrMinBytes: FILES_TO_GLACIER_IR_MIN_BYTES,
  listDigest: true,
  metricsOnlyAlarmed: true,
  payPerWork: true,
  syncMemoryMb: FUNCTION_MEMORY_MB.sync,
  syncRunsAtOnce: SYNC_PLANNER_WORKER.runsAtOnce,
  syncMallocMmap: true,
  syncSpreadSeconds: 0,
  syncCapFromMean: true,
  syncTrigger: 'planner',
  stateUnderOneKb: false,
  unchangedCursorSkipped: 'scraper',
  deletionWalk: true,
  syncCpuCuts: true,
  dynamoCapacity: 'decided',
  mirrorTable: true,
  filesCpuMeasured: true,
  filesHostsAtOnce: FILES_HOSTS_IN_PARALLEL,
  stateListIndexDropped: true,
  apiBytesMeasured: true,
  previewViaCdn: false,
  cloudFrontFlatRate: false,
  syncProvisioned: 'decided',
};

/** The model and the code before issue 28's levers (latency left in: the model is corrected apart). */
export const LEVERS_OFF: Levers = {
  ...LEVERS_NOW,
  latency: false,
  deletionServersAtOnce: HOSTS_IN_PARALLEL,
  storageClasses: false,
  glacierIrMinBytes: GLACIER_IR_MIN_BILLABLE_BYTES,
  listDigest: false,
  metricsOnlyAlarmed: false,
  payPerWork: false,
  syncMemoryMb: SYNC_MEMORY_MB_BEFORE,
  syncRunsAtOnce: WORKER_RUNS_AT_ONCE,
  syncMallocMmap: false,
  syncTrigger: 'eventSource',
  syncCapFromMean: false,
  deletionWalk: false,
  syncCpuCuts: false,
  dynamoCapacity: 'onDemand',
  filesCpuMeasured: false,
  filesHostsAtOnce: HOSTS_IN_PARALLEL,
  stateListIndexDropped: false,
  apiBytesMeasured: false,
  syncProvisioned: 'off',
  unchangedCursorSkipped: 'none',
};

export const LEVER_VARIANTS: Record<
  string,
  { what: string; built: boolean; off: Partial<Levers>; on: Partial<Levers> }
> = {
  deletionCheck: {
    what: `deletion check: ${HOSTS_IN_PARALLEL} → ${DEL_HOSTS_IN_PARALLEL} servers at once (HEADs)`,
    built: true,
    off: { deletionServersAtOnce: HOSTS_IN_PARALLEL },
    on: { deletionServersAtOnce: DEL_HOSTS_IN_PARALLEL },
  },
  deletionWalk: {
    what: 'deletion check: samples keep their place in a weekly walk — an unchanged one writes nothing',
    built: true,
    off: { deletionWalk: false },
    on: { deletionWalk: true },
  },
  storageClasses: {
    what: 'file copies older than 30 days in Glacier Instant Retrieval',
    built: true,
    off: { storageClasses: false },
    on: { storageClasses: true },
  },
  glacierIrMinBytes: {
    what: `Glacier IR rule moves file copies over ${FILES_TO_GLACIER_IR_MIN_BYTES / 1024} KiB (rule filter) instead of S3's default 128 KiB`,
    built: true,
    off: { glacierIrMinBytes: GLACIER_IR_MIN_BILLABLE_BYTES },
    on: { glacierIrMinBytes: FILES_TO_GLACIER_IR_MIN_BYTES },
  },
  metricsOnlyAlarmed: {
    what: 'custom metrics only for alarms; the dashboard reads the rest from the log lines',
    built: true,
    off: { metricsOnlyAlarmed: false },
    on: { metricsOnlyAlarmed: true },
  },
  listDigest: {
    what: 'full syncs read one digest per list (S3), not an index item per object',
    built: true,
    off: { listDigest: false },
    on: { listDigest: true },
  },
  syncMemory: {
    what: `sync function memory ${SYNC_MEMORY_MB_BEFORE} → ${FUNCTION_MEMORY_MB.sync} MB (measured peak, npm run bench -- rss)`,
    built: true,
    off: { syncMemoryMb: SYNC_MEMORY_MB_BEFORE },
    on: { syncMemoryMb: FUNCTION_MEMORY_MB.sync },
  },
  syncMalloc: {
    what: `sync: glibc malloc's mmap threshold fixed at ${SYNC_MALLOC.env.MALLOC_MMAP_THRESHOLD_} B (function environment) — import ${SYNC_MALLOC.importMbBefore} → ${SYNC_MALLOC.importMbWith} MB, CPU a run × ${SYNC_MALLOC.cpuFactor} (npm run bench -- rss) — so ${SYNC_MALLOC.memoryMbBefore} → ${FUNCTION_MEMORY_MB.sync} MB × ${SYNC_PLANNER_WORKER.runsAtOnce} runs with the 1.4 headroom`,
    built: true,
    off: { syncMallocMmap: false, syncMemoryMb: SYNC_MALLOC.memoryMbBefore },
    on: { syncMallocMmap: true, syncMemoryMb: FUNCTION_MEMORY_MB.sync },
  },
  stateUnderOneKb: {
    what: 'what-if (not built): the leased STATE item under 1 KB also after a full sync (≈ 1,046 B now: its lease, claim and release writes 1 unit each)',
    built: false,
    off: { stateUnderOneKb: false },
    on: { stateUnderOneKb: true },
  },
  unchangedScrapeCursor: {
    what: 'an unchanged incremental scrape writes no run cursor (its only write, 1 unit; ≈ 0.97 M a month at 1,000 sources; measured both ways; State is provisioned, so it saves WCU-hours, not on-demand writes) — given up: a redelivered message whose release was lost (a store outage after the run) scrapes its months again (≈ 10 paced requests) instead of answering from the done cursor',
    built: true,
    off: { unchangedCursorSkipped: 'none' },
    on: { unchangedCursorSkipped: 'scraper' },
  },
  unchangedRunCursor: {
    what: "what-if (not built, gives up council bytes): the OParl runs too: no unchanged incremental run writes its run cursor (≈ 1.4 M units a month more at 1,000 sources, beyond the scrapes' built lever) — the OParl cursor carries SCH-9's window start (`bodiesComplete`), so each body's window would grow to its item's day-old start and the council would resend the day's changes to every run",
    built: false,
    off: { unchangedCursorSkipped: 'scraper' },
    on: { unchangedCursorSkipped: 'both' },
  },
  payPerWork: {
    what: 'sync worker: runs of distinct hosts share few invocations that refill from the queue',
    built: true,
    off: { payPerWork: false },
    on: { payPerWork: true },
  },
  syncCapFromMean: {
    what: 'sync workers’ cap from the runs in flight (1.5 × mean ÷ width, `syncRunsInFlight`) instead of SCH-5’s slots ÷ width — the burst waits for live workers',
    built: true,
    off: { syncCapFromMean: false },
    on: { syncCapFromMean: true },
  },
  syncCpu: {
    what: 'sync run CPU cut: a scraped page parsed once, `modified` read without luxon, filter times and the packed cursor not redone (engine CPU measured before and after, bench sync-cpu)',
    built: true,
    off: { syncCpuCuts: false },
    on: { syncCpuCuts: true },
  },
  handoutSpread: {
    what: `what-if (not built, measured dearer): the planner spreads a tick's sync messages over ${SYNC_SPREAD_WHAT_IF_SECONDS} s (SQS DelaySeconds) instead of one burst`,
    built: false,
    off: { syncSpreadSeconds: 0 },
    on: { syncSpreadSeconds: SYNC_SPREAD_WHAT_IF_SECONDS },
  },
  syncTriggerPlanner: {
    what: `sync workers started by the planner's tick (⌈runs in flight and queued ÷ width⌉ less those alive, at most 1.5 × mean ÷ width, no SQS floor of 2) instead of the SQS event source; ${SYNC_PLANNER_WORKER.memoryMb} MB × ${SYNC_PLANNER_WORKER.runsAtOnce} runs (the event source's ${SYNC_EVENT_SOURCE_MEMORY_MB} MB × ${WORKER_RUNS_AT_ONCE})`,
    built: true,
    off: {
      syncTrigger: 'eventSource',
      syncMemoryMb: SYNC_EVENT_SOURCE_MEMORY_MB,
      syncRunsAtOnce: WORKER_RUNS_AT_ONCE,
    },
    on: {
      syncTrigger: 'planner',
      syncMemoryMb: SYNC_PLANNER_WORKER.memoryMb,
      syncRunsAtOnce: SYNC_PLANNER_WORKER.runsAtOnce,
    },
  },
  dynamoCapacity: {
    what: 'DynamoDB: each table provisioned with auto scaling where its week’s load per minute makes it cheaper than on-demand (infra/table-capacity.ts)',
    built: true,
    off: { dynamoCapacity: 'onDemand' },
    on: { dynamoCapacity: 'decided' },
  },
  mirrorTable: {
    what: "the mirror's index items in a table of their own: Standard-IA, no PITR (State keeps PITR)",
    built: true,
    off: { mirrorTable: false },
    on: { mirrorTable: true },
  },
  filesCpu: {
    what: 'files pass billed as measured (bench files-cost: 0.08 s CPU a file, the download inside the host’s slot, 0.009 s a source every run) instead of the assumed 1.5 s of work a file — a correction of the model, no code',
    built: true,
    off: { filesCpuMeasured: false },
    on: { filesCpuMeasured: true },
  },
  filesHostsAtOnce: {
    what: `the files pass downloads from ${FILES_HOSTS_IN_PARALLEL} servers at once instead of ${HOSTS_IN_PARALLEL} (its waits overlap more; each server's pace unchanged) — on the kernel clock (npm run bench -- files-politeness: the real pass in its own process, slots through Upstash, 48 councils × 6 PDFs of 400 KB, load 6.7–19.2 on 2 cores) 0 RATE-1 violations in 4 runs at 16 and 3 at 4, the downloads in 45–60 s instead of 97–139 s; 16 streams of 80 MB peak 302 MB over the baseline (FILES_STREAMS=16 npm run bench -- files) in the function's 1,536 MB`,
    built: true,
    off: { filesHostsAtOnce: HOSTS_IN_PARALLEL },
    on: { filesHostsAtOnce: FILES_HOSTS_IN_PARALLEL },
  },
  syncProvisioned: {
    what: 'sync workers on provisioned concurrency (an alias, `-c syncProvisioned`): the count cheapest at list price for the workers alive (no free tier for such a function)',
    built: true,
    off: { syncProvisioned: 'off' },
    on: { syncProvisioned: 'decided' },
  },
  stateListIndexDropped: {
    what: "State's empty `byList` index deleted after the mirror's move (`-c mirrorTable=ownDropped`, after `--delete-old`)",
    built: true,
    off: { stateListIndexDropped: false },
    on: { stateListIndexDropped: true },
  },
  apiBytes: {
    what: 'mirror API bytes a response as measured (bench api-bytes: a 50-object list page as CloudFront serves it, Brotli/gzip by the viewers’ Accept-Encoding, headers included) instead of the assumed 20,000 B — a correction of the model, no code',
    built: true,
    off: { apiBytesMeasured: false },
    on: { apiBytesMeasured: true },
  },
  previewViaCdn: {
    what: 'what-if (not built): the preview’s stored copies through its CloudFront distribution (OAC to the bucket) instead of presigned S3 redirects — CloudFront $/GB for S3 egress, a second CloudFront request a visit, S3 GETs and Glacier IR retrievals on misses only',
    built: false,
    off: { previewViaCdn: false },
    on: { previewViaCdn: true },
  },
  cloudFrontFlatRate: {
    what: 'what-if (not built): the distribution on the cheapest CloudFront flat-rate plan that covers the month (Pro $15: 10 M requests/50 TB, Business $200: 125 M, Premium $1,000: 500 M; Free’s 1 M is below every fleet), else pay-as-you-go',
    built: false,
    off: { cloudFrontFlatRate: false },
    on: { cloudFrontFlatRate: true },
  },
  previewViaCdnFlatRate: {
    what: 'what-if (not built): both — the stored copies through the distribution and the distribution on the cheapest covering flat-rate plan',
    built: false,
    off: { previewViaCdn: false, cloudFrontFlatRate: false },
    on: { previewViaCdn: true, cloudFrontFlatRate: true },
  },
};
