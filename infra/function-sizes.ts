/**
 * Memory per function (MB), in one place for the stack and the cost model (bench/cost.ts): Lambda
 * bills memory × wall time, so every size here is a price. No CDK import, so the bench loads it cheaply.
 *
 * Sized from measured peak RSS (`npm run bench -- rss`, 2026-12-01, Node 20 on x86_64; arm64 is
 * similar): each function's bundle as the stack builds it imported in a fresh process (what a cold
 * start holds), plus what its work adds — for the sync ten full syncs of the demo council side by side
 * (one batch), for the planner two ticks over 10,000 sources.
 *
 * | function | bundle import | work adds | size | why this size |
 * |---|---|---|---|---|
 * | planner | 63 MB | 109 MB for two ticks over 10,000 sources (cached config, due items) | 512 | CPU-bound: below 1,769 MB a function gets that share of a vCPU, so its bill is the same at any size below; 512 keeps a 10,000-source tick inside its 60 s |
 * | sync | 77–78 MB with SYNC_MALLOC's threshold (91–94 without; 101 before the sync-memory cut, 2026-12-03) | issue 28, 2026-12-03: the real worker with 34 full syncs of real 100-object pages in flight under Lambda's 256 MB heap bounds: live memory 36 → 120 MB, ≈ 2.5 MB a run (SYNC_WORKER_MEMORY below; 20 runs: ≈ 3.6 MB a run) | 227 | wait-bound (the host's pace): the bill is ∝ memory × invocations alive. 34 runs need ≈ 162 MB with the threshold: 227 is the least whole MB at 1.4× (SYNC_MEMORY_HEADROOM); chosen by cost among the sizes that fit, tight sizes included (see below). Was 256 (≈ 178 MB need without the threshold), before that 512 (2× a ≈ 240 MB estimate, not measured) |
 * | files | 101 MB | a 50 MB PDF and pdf.js's parse of it in the text worker, bounded: ≤ 768 MB per file, stopped at 1,300 MB for the process (DOC-2, shared/documents/constants.ts) | 1536 | the text worker's process bound plus the growth between two looks (test/documents/text-bounds.test.ts). Issue 28, 2026-12-03 (`npm run bench -- files-cost`, the real pass over 20 councils × 5 PDFs of 400 KB): 0.071 s CPU a file (0.048 of it text), the rest of its ≈ 0.37 s billed a file is the host's pace (4 hosts at once); every hourly pass also loads every source (0.009 s CPU each) — billed ≈ 47,000 GB-s a month at 1,000 sources (€0.54). A split (downloads at 256 MB, text at 1,536) would save at most 5/6 of the waits' ≈ €0.31 (≈ €0.26): not built |
 * | deletionCheck | 92 MB (97 MB 2026-12-03) | HEAD requests, no bodies; whole-file GETs 4 at once; issue 28, 2026-12-03 (`npm run bench -- deletion-cpu`, liveMbAdded): a run of 40 servers × 30 stored files (1,200 samples) adds +35 MB live → ≈ 132 MB, 26 % of 512 (34 % of 384) | 384 (512 until 2026-12-04, see below) | issue 28: 100 servers at once overlap their RATE-6 waits (≈ 270 s a run at 1,000 sources); CPU measured with the peers and councils in other processes (`npm run bench -- deletion-cpu`): ≈ 4.4 ms a sample and ≈ 8–23 ms a source's loads a run on one vCPU → ≈ 250 s at 512 (≈ 500 s at 256, too close to the 780 s a run may use with bigger councils). At 10,000+ sources the run is split into shards by host (DEL_SOURCES_PER_SHARD, one invocation each). Decided by the model, 2026-12-03 (test/cost/files-deletion-sizes.test.ts): at 512 the run is CPU-bound (≈ 285 s of CPU against 274 s of RATE-6 waits at 1,000 sources), so 256 bills the same GB-s (570 s × 256 MB) and leaves less room; at 10,000 sources a 2,000-source shard needs 1,141 s of CPU at 256 — beyond its 780 s, each file sampled every ≈ 12.5 days instead of 7 (DEL-2). Above 512 the waits bill memory the CPU no longer needs (768: +44 %) |
 * | photos | 95 MB | one photo at a time | 256 | wait-bound (the host's pace) |
 * | preview | 96 MB | streams from S3 | 1024 | a visitor waits for its cold start: at 256 MB the import's ≈ 0.5 s CPU takes ≈ 3.5 s |
 * | geo | 76 MB | issue 28, 2026-12-03: the largest answer the limits admit (50 MiB of plan boundaries, DEFAULT_MAX_BYTES.service) read, parsed, normalised and serialised: live heap + buffers 36 → 654 MB (+618 MB); in a child with the heap bounds of 768 MB it still ran, resident 731 MB; ≈ 4.4 s CPU on one core (≈ 7.6 s at 1,024 MB) | 1024 | ≈ 694 MB needed: 68 % of 1,024 (768 would be 90 %) |
 * | broadcasts | 91 MB | issue 28, 2026-12-03: an hour of passes outside meeting windows (the usual minute): +15 MB live, ≈ 3.7 ms CPU a pass | 256 | ≈ 106 MB needed: 41 % of 256 (192 would be 55 %, but a pass inside a window builds the fetch runtime — Upstash slots, the secret — not measured here, and the cold import's ≈ 0.5 s CPU takes ≈ 3.5 s at 256, ≈ 4.6 s at 192 of the init phase's 10 s). Was 512, not measured |
 * | mirrorApi | 95 MB | issue 28, 2026-12-03: the function's own composition answering list pages of 100 papers, 3 inline and 3 of papers read from S3 (the worst page): +23 MB live; ≈ 790 ms CPU for the six pages with the first call's setup, on this shared machine | 512 | ≈ 118 MB needed (23 % of 512): memory does not decide; an API client waits for a cold start and each page's CPU, which the share below 1,769 MB stretches (as the preview) |
 *
 * The margin: a size keeps its measured need at ≤ ~70 % (SYNC_MEMORY_HEADROOM's 1.4× for the sync):
 * the measurement runs under tsx on x86_64 with the peers elsewhere, real pages can be larger than the
 * fixtures, and Lambda's runtime and Node's own growth take their share. The figures above for geo,
 * broadcasts and the mirror API: `RSS_ONLY=geo,broadcasts,mirror-api,mirrorApi npm run bench -- rss`
 * (bench/rss.ts; the planner's 2026-12-03 re-run there: bundle 96 MB, +126 MB for its two ticks — 222 MB,
 * 43 % of 512). Not measured by work: photos (one photo at a time, 256 MB: the bundle is 38 %).
 *
 * Issue 28 (function memory, 2026-12-03): every bundle's import with glibc's fixed mmap threshold
 * (SYNC_MALLOC; each bundle as bench/bundle.ts builds it imported three times in a fresh Node, as
 * `RSS_WORK=0 RSS_CHILD_ENV='MALLOC_MMAP_THRESHOLD_=32768' npm run bench -- rss` does, before → with): sync 91–94 → 77–78, planner 85–88 → 72–73, deletion check 86–89 → 73–74,
 * photos 85–86 → 73–74, preview 87–90 → 73–74, files 86–89 → 73–74, broadcasts 80–83 → 67, geo 71 → 63,
 * mirror API 87 → 73 MB, each import ≈ 80–170 ms more CPU. Set on the sync only, the one function whose
 * size its memory decides and whose bill is ∝ that size (its runs wait on the councils' pace). For the
 * others 14 MB less changes no bill: the planner and the deletion check are CPU-bound at their size (less
 * memory stretches the same CPU: the same GB-s, less room in their time limits), the preview and the
 * mirror API are sized by a client's wait (a cold start's import and each answer's CPU), the files by
 * its text worker's bound (DOC-2), geo by its 618 MB answer (≈ 680 MB × 1.4 still needs 1,024), and
 * broadcasts and photos bill €0.04 and €0.10 a month at 256 MB (160 MB would save ≈ €0.05 together; a
 * photo's work is not measured).
 */
export const FUNCTION_MEMORY_MB = {
  planner: 512,
  // Issue 28: 34 runs a worker started by the planner (SYNC_PLANNER_WORKER below; the event source's
  // trigger keeps SYNC_EVENT_SOURCE_MEMORY_MB). 320 until the sync's import and a run's share were
  // re-measured (sync memory, 2026-12-03).
  // Issue 28 (function memory): 227 MB with SYNC_MALLOC's threshold, re-landed 2026-12-04 once the
  // politeness faults that held it back were fixed (cold-start send allowance; RATE-7 slow answers) — the
  // politeness bench at 227 MB + the threshold: no violation while Redis served in 3 runs, none at all in 2
  // (the third: 3 after Redis was killed, the fallback-grid fault seen at 256 MB too; docs/reliability.md).
  sync: 227,
  // Text extraction holds a file of up to 50 MB and pdfjs's parse of it in a worker stopped at
  // TEXT_MAX_PROCESS_RSS_BYTES (1,300 MB) of this (DOC-2; checked by test/documents/text-bounds.test.ts).
  files: 1536,
  // Issue 28 (deletion-cpu, 2026-12-04): 384 since a sample's CPU halved (bench/cost/assumptions.ts
  // deletionCpuSecondsPerCheck 0.005 → 0.0029): at 512 the run became wait-bound (≈ 199 s CPU against
  // 274 s of RATE-6 waits at 1,000 sources), billing memory its CPU no longer needs. The model
  // (test/cost/files-deletion-sizes.test.ts): 384 bills ≈ 103 GB-s an hour at 1,000 sources against
  // 137 at 512; a 2,000-source shard at 10,000 needs ≈ 530 s CPU of its 780 s; 256 would bill ≈ 99 but
  // that shard would need 795 s — more than its run, each file sampled every 7.2 days (DEL-2). Memory: ≈ 74 MB import + ≤ 51 MB a run, 33 %.
  deletionCheck: 384,
  photos: 256,
  // One geo source's FeatureCollection in memory (≤ 50 MiB answer, DEFAULT_MAX_BYTES.service): measured
  // ≈ 694 MB for the largest (bundle 76 MB + 618 MB of work), 68 % of this.
  geo: 1024,
  preview: 1024,
  // OTH-5: a playlist or status of a few KB per minute, and a few State items: measured ≈ 106 MB
  // (bundle 91 MB + 15 MB a pass), 41 % of this; the init phase's import CPU keeps it above 192.
  broadcasts: 256,
  // One list page (≤ 100 JSON objects) at a time; reads only: measured ≈ 118 MB (bundle 95 MB + 23 MB
  // for pages of 100 papers, inline or from S3). Sized by CPU — a client waits for each page — not memory.
  mirrorApi: 512,
} as const;

/**
 * Issue 28: the sync worker's memory, measured — the sync's size and the worker's width
 * (WORKER_RUNS_AT_ONCE) are chosen from it by cost (`npm run bench -- cost`, `syncSizing`).
 * - `bundleImportMb`: the sync bundle imported in a fresh process (`RSS_ONLY=sync,worker RSS_WORKER_RUNS=34
 *   RSS_LAMBDA_MB=256 npm run bench -- rss`, 2026-12-03, a machine under load ≈ 20 on 2 cores): 94 MB
 *   (101 on 2026-12-01); 78 MB with SYNC_MALLOC's environment, which the function runs with (issue 28,
 *   function memory: 77–78 in three imports, 91–94 without). Issue 28 (sync memory) cut what a run never calls from the import: cheerio's
 *   main entry (its URL/buffer/stream loaders, encoding-sniffer with two more iconv-lite copies —
 *   shared/scraper/html.ts) and undici's index (shared/net/undici.ts): bundle 3.50 → 2.34 MB; the same
 *   two bundles imported alternately five times each on the same machine: 103 → 90–91 MB resident.
 * - `mbPerRun`: 2026-12-03, the same command: the real worker (composeSync, Redis host slots, the queue)
 *   with 34 full syncs of real 100-object pages in flight against 34 loopback councils answering in
 *   1.5 s, in a Node process with the heap bounds Lambda's runtime sets at 256 MB (bench/rss.ts
 *   lambdaHeapFlags): all 34 runs done (34 in flight at once, 674 s under that load), live heap and
 *   buffers 36 → 120 MB at peak (84 MB, ≈ 2.5 MB a run), the process's resident set at most 248 MB —
 *   under 256 MB although tsx's transpiler adds ≈ 60 MB that the bundle does not have. The earlier
 *   figure, 20 runs under the same bounds: 35 → 106 MB (71 MB, ≈ 3.6 MB a run) — a run's share falls
 *   with the width (the worker's own structures, the clients, the pools are shared). Without the bounds
 *   V8 collected late and the same work showed ≈ 10 MB a run (228 MB live): not the need.
 */
export const SYNC_WORKER_MEMORY = {
  bundleImportMb: 78,
  mbPerRun: 84 / 34,
  measuredRuns: 34,
} as const;

/**
 * Issue 28 (function memory, 2026-12-03): the sync's process environment beyond the common one — glibc's
 * malloc with a fixed mmap threshold of 32 KiB. By default the threshold slides: the first free of a
 * large mmapped block raises it to that block's size (up to 32 MB), so the import's transient buffers
 * (the bundle's source, the SDK's tables) land in the brk heap afterwards and stay resident. Fixed, they
 * are mapped and returned when freed. Measured (the sync bundle imported three times each in a fresh
 * Node, with and without Lambda's 256 MB heap bounds — what `RSS_ONLY=sync RSS_WORK=0 RSS_LAMBDA_MB=256
 * RSS_CHILD_ENV='MALLOC_MMAP_THRESHOLD_=32768' npm run bench -- rss` measures): the sync's import
 * 90–94 → 77–78 MB (every bundle −8 to −16 MB, below), its CPU
 * ≈ +100 ms (a cold start's, once per instance). Under the run load (`RSS_ONLY=worker RSS_WORKER_RUNS=34
 * RSS_LAMBDA_MB=256`, both settings side by side, twice, on this machine at a load of 15–21 on 2 cores —
 * too loaded for the runs to finish: 27 and 7, then 0 and 0 of 34 ended ok in the 15 minutes): the
 * resident peak 247 → 204 and 219 → 200 MB, the live growth alike (89 / 56, 65 / 67 MB: V8's heap is not
 * malloc's), the CPU a polite request 440 → 458 ms (+4 %) and 515 → 677 ms (+31 %). The bill takes the
 * worse, +31 % (cpuFactor): the sync's CPU is a small part of its wall time, which is the councils' pace.
 * 65,536 left the import at 92 MB: the threshold has to sit below the import's transient blocks.
 * The V8 side was measured too and left: `--max-semi-space-size=1` cut the import by ≈ 3 MB, but Lambda's
 * bootstrap passes its own on the command line, which wins over NODE_OPTIONS (checked with node 20:
 * NODE_OPTIONS=--max-semi-space-size=2 beside a command-line 12 keeps the 12), so it would take an exec
 * wrapper; `--lite-mode` −6 MB by giving up the optimising compiler for a worker whose runs parse pages.
 */
export const SYNC_MALLOC = {
  env: { MALLOC_MMAP_THRESHOLD_: '32768' },
  importMbBefore: 92,
  importMbWith: 78,
  /** A run's CPU with the threshold ÷ without (per polite request of the worker scenario). */
  cpuFactor: 1.31,
  /** The sync's size before (SYNC_WORKER_MEMORY's import then 94 MB). */
  memoryMbBefore: 256,
} as const;

/**
 * The margin a size keeps over the measured need (bundle + runs): 1.4× — for pages larger than the
 * demo's (long names and texts), the runtime's own buffers and Node's growth, and the measurement's
 * load. A 20-run worker needs ≈ 172 MB: 256 MB is 1.49× that.
 *
 * Chosen by cost (`npm run bench -- cost`, `syncSizing`, 1,000 sources, 2026-12-03, the worker model
 * with the event source's pollers beside the workers): with the event source's cap from the runs in
 * flight (infra/sync-concurrency.ts, built the same day) 256 MB × 20 runs is the cheapest size that
 * holds its runs with this margin — the sync €14.53 a month (384 × 40: €20.02, 512 × 60: €23.00).
 * With the cap from SCH-5's slots alone (a deploy without `syncRunsInFlight`) it bills €26.17 and
 * 512 × 60 would be 12 % cheaper — a width whose memory is extrapolated from the 20 measured. Below
 * 256 MB only 10 runs fit (192 MB × 10: €29.40 with the slots' cap): the bundle's ≈ 100 MB is the
 * weight an invocation carries, each run's ≈ 3.6 MB is not. Spreading the planner's handout over its
 * minute bills more at every size. That was the event source's trigger (SYNC_EVENT_SOURCE_MEMORY_MB);
 * with the planner's (session 16, the default) 320 MB × 34 is the cheapest (SYNC_PLANNER_WORKER).
 */
export const SYNC_MEMORY_HEADROOM = 1.4;

/**
 * Issue 28: the sync's size when the planner starts the workers (infra/stack.ts `-c syncTrigger=planner`).
 * Function memory (2026-12-03): 34 runs at 227 MB — SYNC_MALLOC's threshold cut the import to 78 MB, so
 * 78 + 34 × 2.47 = 162 MB, × 1.4 = 226.8: the tight size bench/cost/sync-sizing.ts prices for each width.
 * Before that:
 * 34 runs at 256 MB since the sync-memory re-measure (2026-12-03, SYNC_WORKER_MEMORY: 94 + 34 × 2.47 =
 * 178 MB, 1.44× with SYNC_MEMORY_HEADROOM): the cheapest that fits by cost (`npm run bench -- cost`,
 * `syncSizing`, 1,000 sources, the built 320 × 34 beside it): 256 × 34 €7.03 a month against 320 × 34
 * €8.73 (320 × 40: €8.77, 384 × 60: €10.14, 256 × 20: €13.15; with the event source's trigger 256 × 34
 * would be €13.09 against its 256 × 20 €13.53). Until then: 34 runs at 320 MB — the widest that fits 320 MB with the measured need and SYNC_MEMORY_HEADROOM (101 +
 * 34 × 3.55 = 222 MB, 1.44×), so that at 1,000 sources one worker holds what the cap reckons with (1.5 ×
 * 22.3 runs in flight ≈ 34). Measured at this width (`RSS_ONLY=worker RSS_WORKER_RUNS=34
 * RSS_LAMBDA_MB=320 npm run bench -- rss`, 2026-12-03, under a loaded machine: 34 in flight, 25 ended
 * ok in time): live heap 36 → 114 MB, ≈ 2.3 MB a run — below the 3.55 the size is reckoned with.
 * Priced by cost (`syncSizing.syncEurPlanner`, 1,000 sources): €8.73 a month against the event
 * source's €13.53 at 256 MB × 20 (384 × 40: €10.21, 512 × 60: €13.47).
 */
export const SYNC_PLANNER_WORKER = { memoryMb: FUNCTION_MEMORY_MB.sync, runsAtOnce: 34 } as const;

/**
 * The sync's size with the event source's trigger (`-c syncTrigger=eventSource`): 20 runs
 * (WORKER_RUNS_AT_ONCE) need ≈ 172 MB, 256 MB is 1.49× — the cheapest that fits with that trigger.
 */
export const SYNC_EVENT_SOURCE_MEMORY_MB = 256;

/**
 * Sync messages per invocation (issues 18, 28). The event's records are the sync worker's first
 * messages (shared/sync/worker.ts): they run at once, one run per host, and the worker refills from the
 * queue itself up to WORKER_RUNS_AT_ONCE (20) while time is left, so waits of many hosts overlap and are
 * billed once. Each source's host pace stays global through the slot store; a failed record is a partial
 * batch failure, redelivered alone. Ten: SQS's largest batch without a window; the worker takes the rest.
 */
export const SYNC_BATCH_SIZE = 10;

/**
 * Issue 28: how long the event source gathers messages before it invokes the sync. A planner tick sends
 * its runs' messages in one burst (SendMessageBatch calls of ten, four at once: tens of milliseconds), and
 * without a window the event source's pollers split such a burst across several invocations, each billed
 * for its own run's wait. Two seconds gather one tick's burst into one invocation — whose worker overlaps
 * those runs — at the price of starting a run two seconds later, nothing beside a one-minute tick. Longer
 * would only delay: the worker takes whatever arrives later from the queue itself.
 */
export const SYNC_BATCHING_WINDOW_SECONDS = 2;

/**
 * Issue 25 point 4: the OParl API's own bound on instances (reserved concurrency, with the stack's
 * `reservedConcurrency`): a flood of cache misses is throttled at this many — CloudFront answers the
 * excess with an error — and never takes the account's pool from the sync, whose SQS maximum
 * concurrency stays as it is. The cost model bills the most this bound lets the API cost.
 */
export const MIRROR_API_MAX_INSTANCES = 10;
