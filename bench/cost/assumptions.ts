/**
 * The named assumptions of the cost model (issue 18): what a realistic mix of sources does in a week.
 * Each is a guess about the world, not a measurement — change them here and the bench prints the new
 * bill. What IS measured (requests, DynamoDB and S3 calls, log bytes per kind of run; planner reads and
 * writes per start) comes from running the real engines in bench/cost.ts.
 */
export const ASSUMPTIONS = {
  /** Share of OParl sources; the rest are scraped ALLRIS/SessionNet sites (2 s pace, RATE-3). */
  oparlShare: 0.6,
  /** Bodies per OParl source (most systems serve one town; districts serve several). */
  bodiesPerOparlSource: 1.5,
  /**
   * A real OParl list: ~1,500 objects at the server's page size of 100 = 15 pages. The demo council is
   * run with the same pages per list (150 objects at 10 per page), so request counts are measured as
   * they would be; per-object quantities (S3 writes, bytes, work) are scaled by this factor.
   */
  oparlObjectScale: 10,
  /** Changes a source publishes per weekday, between 08:00 and 18:00 (none at the weekend). */
  changesPerWeekday: 4,
  /** Meeting days per source and week (SCH-2 makes those days faster). */
  sessionDaysPerWeek: 2,
  /** Objects an incremental sync sees changed per change (a paper, its consultation, its file). */
  objectsPerChange: 3,
  /** New files (PDFs) per source and week, average size, and text extracted per file. */
  filesPerSourcePerWeek: 15,
  fileBytes: 400_000,
  /**
   * Issue 28: the spread of file sizes around that mean — lognormal, σ of ln(size) (bench/cost
   * file-sizes.ts; the median follows from the mean: ≈ 150 KB). Assumed, not measured: council PDFs
   * run from one-page letters (≈ 20–60 KB) to scanned plans of several MB, ≈ ±2.5 σ around the median;
   * the fixtures hold one real ALLRIS file size (460 KB, ../shared/fixtures/ris-html/allris/altona
   * vo020.html), no distribution. With it ≈ 46 % of files are under 128 KiB, holding ≈ 6.7 % of the
   * bytes: what decides the Glacier IR transition (a request per object, 128 KiB billed at least).
   */
  fileSizeSigma: 1.4,
  textBytesPerFile: 20_000,
  /** Files already stored per source (history): the deletion check samples each once a week (DEL-2). */
  storedFilesPerSource: 2_000,
  /**
   * Issue 28, measured (`npm run bench -- files-cost`, 2026-12-03): the files pass's own CPU per file —
   * the real `runFilesPass` over 20 loopback councils × 5 council documents of 400 KB (8 pages, 20,000
   * characters: bench/council-pdf.ts), the local DynamoDB/S3 and the councils in other processes,
   * `process.cpuUsage()` of the pass (the text worker's thread included): 7.09 s for 100 files —
   * 0.023 s a file downloading (fetch, SHA-256, S3 multipart, records) and 0.048 s for its text (S3
   * read, pdf.js in the worker: 0.030 s, text put, records). Four runs on this loaded machine (20 and 40
   * councils, answers at once and after 500 ms): 0.071–0.081 s. 0.08 s; not in it: each request's
   * Upstash slot call and real files' embedded fonts, which pdf.js parses (a 5 MB, 60-page file: 0.49 s).
   */
  fileCpuSeconds: 0.08,
  /**
   * Issue 28, measured the same way: a files pass an hour later with nothing due, 0.185 s CPU for 21
   * sources — what every hourly run pays per source (its config, state, bodies, takedowns, queue reads).
   */
  filesCpuSecondsPerSourceRun: 0.009,
  /**
   * What the model billed before the measurement (issue 18): 1.5 s a file "apart from the pace wait:
   * download at a council's bandwidth, pdf.js text" — the download is a wait inside the host's slot
   * (`latency.file`), the CPU 0.08 s.
   */
  fileWorkSecondsAssumed: 1.5,
  /** Documents-table writes and reads per file stored (state, text flag, route). */
  fileWrites: 3,
  fileReads: 2,
  /** Preview visits per source and week; a visit's bytes come from S3 (302 to a presigned URL). */
  previewVisitsPerSourcePerWeek: 50,
  previewFunctionSeconds: 0.1,
  /**
   * Size of one DynamoDB item (bytes) — storage only: of a source's own State items (20 a source) and of
   * Documents. The mirror index (an item per object, its list-index copy) is measured, not assumed.
   */
  stateItemBytes: 1_500,
  documentItemBytes: 800,
  /**
   * Upstash commands per paced request (issue 28, RATE-1/RATE-4): the check-and-reserve is one script
   * (EVALSHA, one command; shared/slots scripts.ts RESERVE_SLOT_SCRIPT) and the previous request's
   * release rides along with it (test/slots/redis-rules.test.ts "one round trip per request", real
   * redis-server); a run's last release goes alone (`upstashCommandsPerRun`). Was 2, the bound.
   * Checked against the real worker (2026-12-03, `RSS_ONLY=worker RSS_WORKER_RUNS=5 npm run bench --
   * rss`, commands counted at the Upstash adapter, scripts at the redis-server): 5 first full syncs,
   * 70 requests, 150 commands = 2.14 a request (115 scripts, 35 other commands), on a machine loaded
   * ≈ 2× its cores — late slots re-reserved and busy polls count there; a second run with the release
   * linger at 1 s instead of 250 ms gave 2.4 (the 35 others unchanged: not lone releases). Until the
   * others are named, the bill may be short by up to 2× here: see `upstash` in the bench's output.
   */
  upstashCommandsPerRequest: 1,
  upstashCommandsPerRun: 1,
  /**
   * Bytes on the wire per command (REST: the script's 6 keys and 8 arguments out, 6–7 numbers back,
   * HTTP framing apart) — against the fixed plan's monthly bandwidth. An estimate; the JSON bodies
   * measured at the test adapter in the worker scenario above: 556–565 B a command.
   */
  upstashBytesPerCommand: 700,
  /**
   * Issue 28, the ingest's own egress: what our side sends a council, at the IP level as AWS meters
   * transfer — measured, `npm run bench -- wire-bytes` (2026-12-03; tcpdump on the loopback, the real
   * engines and fetcher against the fake council and the fake ALLRIS site; bench/wire-bytes.ts):
   * - a request's packets, plain: 249 B an OParl page (212 B in a full run), 327 B a scraped page (its
   *   longer query strings); a file's or HEAD's request is taken as a scraped page's;
   * - TLS 1.3 adds 22 B a request (record header, content type, AEAD tag) and 669 B a connection
   *   (ClientHello, Finished), measured with the real fetcher against a loopback HTTPS server and the
   *   same server in plain HTTP (2 and 6 requests each; the differences);
   * - the answers' bytes, measured (`responseBytes`), acknowledged on a 1,500-byte path one ACK of 52 B
   *   per two segments (bench/cost/wire-bytes.ts `acksOnPath`: the loopback's 64 KiB MTU is no real
   *   path's) — a real full OParl page is the demo's × oparlObjectScale;
   * - one new connection a run (216 B of TCP besides): runs are minutes apart and the fetcher's
   *   keep-alive is 4 s (shared/net dispatcher.ts); a file fetch its own; the deletion check one per
   *   server and hourly run, the photo check one per source and weekly run.
   * Was `councilRequestBytesOut: 1_000` a request, an estimate.
   */
  councilWire: {
    requestIpBytes: { oparl: 249, scraper: 327 },
    tlsRecordBytesPerRequest: 22,
    tlsHandshakeBytesPerConnection: 669,
    responseBytes: {
      oparlFullDemoPage: 7_880,
      oparlIncremental: { changed: 1_304, unchanged: 873 },
      scraper: { full: 5_745, changed: 7_076, unchanged: 7_076 },
      head: 300,
    },
  },
  /**
   * Lambda's SQS poller long-polls an idle queue: ~5 pollers × 20 s polls ≈ 15 ReceiveMessage calls a
   * minute, billed as SQS requests whether or not a message comes.
   */
  sqsIdleReceivesPerMinute: 15,
  /** Lambda's SQS pollers sharing a minute's messages (a batch holds what one poll returns). */
  sqsPollers: 5,
  /** CloudWatch: metric series (name × dimension values), alarms and dashboards of the stack. */
  metricSeries: 20,
  // Issue 25 point 4: + the API's invocation alarm.
  alarms: 9,
  dashboards: 1,
  /** Logs are kept 30 days; stored size ≈ ingested × 0.15 (CloudWatch compresses archives). */
  logsStoredFraction: 0.15,
  /** Secrets read per cold start (the Upstash token); cold starts per month across functions. */
  coldStartsPerMonth: 3_000,

  // Issue 28: a model that is right.
  /**
   * Legislative terms a real body embeds (3–8; the demo's default of 150 made every incremental sync
   * look up 151 items). The demo council is run with this many; its other lists keep 150 objects.
   */
  legislativeTermsPerBody: 5,
  /**
   * The council's answer time per request, uniform between the bounds (seconds). A run waits for the
   * answer before its next reservation, and slots are reserved start to start, so a request takes
   * max(interval, answer) of the run's wall time (model.ts expectedRequestSeconds).
   */
  latency: {
    /** A full list page of 100 objects (nightly and first full syncs). */
    oparlFullPage: { minSeconds: 1, maxSeconds: 3 },
    /** An incremental page (modified_since: few objects), the system and body objects. */
    oparlIncrementalPage: { minSeconds: 0.2, maxSeconds: 1 },
    /** A scraped HTML page (ALLRIS / SessionNet). */
    scraperPage: { minSeconds: 0.3, maxSeconds: 1.5 },
    /** A HEAD of a stored file (deletion check) and a robots.txt. */
    head: { minSeconds: 0.1, maxSeconds: 0.5 },
    /**
     * Issue 28: a council document's GET to its last byte (400 KB at 0.3–2 MB/s and the answer): it runs
     * inside the host's slot, so only the part beyond the interval adds (expectedRequestSeconds).
     */
    file: { minSeconds: 0.2, maxSeconds: 1.5 },
  },
  /** Functions not measured here, per invocation (seconds) — rough figures, stated. */
  geoSecondsPerRun: 300,
  broadcastSecondsPerRun: 0.3,
  /** The broadcast poller's reads per minute (meetings of the next hours, one query). */
  broadcastReadUnitsPerRun: 2,
  /** Mirror API: requests per source and month reaching CloudFront, the share its cache answers. */
  apiRequestsPerSourcePerMonth: 3_000,
  apiCacheHitShare: 0.6,
  apiFunctionSeconds: 0.08,
  // Read units a request: one list page of the measured mirror items (bench/cost.ts apiPageReadUnits).
  /**
   * Issue 28: what an API response weighs as CloudFront serves it — measured, `npm run bench --
   * api-bytes` (bench/api-bytes.ts, 2026-12-03): the real API over the demo council (the cost bench's
   * shape: 150 objects a list, 5 terms) synced by the real engine, every list of the listed body walked
   * at the API's default page size (50), 27 full pages (10 lists; the terms' one short page left out)
   * and 20 single objects. The bill takes every request as a list page (as its read units do: bench/cost
   * inline-bound.ts ApiPageModel), so the mean full page is billed; a single object is ≈ 0.44 + 1.1 KB
   * raw (0.51 KB Brotli'd), so the figure is an upper bound for a mix with objects. Sizes: the header
   * block the origin sends (HTTP/1.1 text, hop-by-hop headers out) + the 4 headers CloudFront adds
   * (196 B; bench/cost/api-bytes.ts); the body raw, gzip (the larger of level 1 and 6) and Brotli (the
   * larger of quality 4 and 11) — CloudFront does not document its levels. Scale check: the OParl
   * specification's example objects compress to 0.24–0.70 of their size (Meeting 3.1 KB → 0.75 KB), the
   * demo's single objects to 0.44–0.55; a page of 50 compresses 6–7× (its keys and URLs repeat).
   * Was `apiBytesPerResponse: 20_000`, an assumption; the measured raw page is 61 KB.
   */
  apiWire: {
    listPage: { headerBytes: 436, rawBytes: 60_588, gzipBytes: 9_993, brotliBytes: 8_509 },
    /**
     * ASSUMED shares of API requests by the viewer's Accept-Encoding: browsers (the portal's pages) send
     * `gzip, deflate, br`, CloudFront answers Brotli; server-side clients mostly gzip — node's fetch
     * sends `gzip, deflate` (measured by the bench), Python requests `gzip, deflate`, Go's net/http
     * gzip; curl without `--compressed` and Java's HttpClient send none and get the raw page (7× the
     * bytes). Half the requests from browsers, 5 % without Accept-Encoding.
     */
    viewerEncodings: { brotli: 0.5, gzip: 0.45, none: 0.05 },
  },
  /**
   * Issue 28 (inline bound grid, bench/cost/inline-bound.ts): what one round of a page's parallel S3
   * GETs adds to the API function (S3 first-byte latency in-region, ≈ 20–40 ms; assumed).
   */
  apiS3RoundSeconds: 0.03,
  /** Change feed: one event per changed object (objectsPerChange × changes). */
  changeFeedEventsPerObject: 1,
  /**
   * Custom metric series = (name, dimension values) the functions emit; the stack names the names
   * and dimension keys (dashboard SEARCH expressions, alarms), not the values: values per key here.
   */
  metricDimensionValues: { Outcome: 6, Result: 4, Verdict: 2, Kind: 3, PauseKind: 3, Switch: 3 } as Record<
    string,
    number
  >,
  /**
   * Issue 28 "only the metrics an alarm reads": the custom metric series the stack had before, when every
   * metric was EMF (counted from the synthesised stack at 444cf56 with the dimension values above: the
   * dashboard's SEARCH expressions and plain widgets plus the alarms). The lever's "off" side.
   */
  metricSeriesAllEmf: 48,
  /**
   * Issue 28 (metric-hours, bench/cost/metric-hours.ts): a custom metric series is billed only for the
   * hours it gets data. What the planner writes in an ordinary hour is found by running its metric code on
   * an ordinary fleet: one source in an ERR-4/ERR-5 backoff this long without a success (a council server
   * down for a morning; assumed — in 1,000 councils one is nearly always in some backoff, so the pause
   * gauges are never all zero).
   */
  typicalLongestPauseHours: 6,
  /**
   * Hours a month with data for a metric written only on an incident of ours (StoreOutages; each
   * SlotStoreFallback `Switch` value): 2 incidents a month touching 2 clock hours each (assumed; DynamoDB,
   * S3 and SQS have 99.9–99.99 % SLAs ≈ 0.07–0.7 h a month of downtime, Upstash's regional Redis 99.99 %,
   * so 4 h is generous). The figure hardly matters: each hour is €0.26 ÷ 730 ≈ €0.00035 a series.
   */
  metricIncidentHoursPerMonth: 4,
  /**
   * Hours a month in which some active source has gone more than a day paused without a success — the
   * only hours SourcePausedTooLong's gauge is a datapoint (CUSTOM_METRIC_ONLY_WHEN): per 1,000 sources, one
   * council a month switches its system off or blocks us (ROB-8, ID-4) and the operator, alarmed, takes
   * two days to deactivate it (assumed). Scales with the fleet, capped at the month's hours.
   */
  pausedTooLongHoursPer1000: 48,
  /** Storage classes: share of preview visits that read a file older than the transition age. */
  previewOldFileShare: 0.3,
  /**
   * Issue 28, the what-if of stored copies served through the distribution (levers.ts `previewViaCdn`):
   * the share of such file requests CloudFront answers from its cache, without an S3 GET (or a Glacier
   * IR retrieval). ASSUMED — nothing measures it: a document opened by several visitors within a day
   * (a meeting's agenda that week) at one edge; files are many and each seldom opened, so lower than the
   * API's 0.6. The lever's result hardly moves with it: the S3 GETs and retrievals it saves are ≈ €1 a
   * month at 1,000 sources in all.
   */
  previewCdnHitShare: 0.3,
  /**
   * CPU seconds of one deletion-check sample (a HEAD through the fetcher, the walk's share of DynamoDB
   * reads and cursor writes) on one full vCPU, measured 2026-12-04 with `npm run bench -- deletion-cpu`
   * (bench/deletion-cpu.ts): the real `runDeletionCheck` in its own process, the local DynamoDB/S3 peers
   * and 40 demo councils each in another, `process.cpuUsage()` of the checker only, its memory sampler's
   * own CPU taken out (≈ 0.55 s a run, ≈ 0.5 ms a sample, counted in before); 2 runs × 1,200 samples,
   * the quiet run's per-source share taken out: 1.9, 2.1, 2.7, 3.1 ms a sample in four runs (median
   * 2.4; the last with tests running beside it) — the code before, run alongside the second and third
   * under the same load 8–10 on 2 cores: 4.2 and 3.7 ms (per-run figures in the bench's log). + 0.5 ms
   * for the slot call (below) = 0.0029. Issue 28 (deletion-cpu):
   * was 0.005 — a HEAD no longer opens a new connection (undici closed it after each HEAD: connect,
   * reset and its error ≈ 1/5 of a sample) and its empty body is no longer read through the limits'
   * stream pipeline. Not in it: each request's Upstash slot round trip (host slots in memory there) —
   * one more small HTTPS call a HEAD on a kept connection, ASSUMED ≈ 0.5 ms (the round-up the figure
   * before carried for it); nor TLS (the councils are plain HTTP there): a kept connection also saves
   * a TLS handshake a sample in production, which this figure does not claim.
   * The function asks 100 servers at once, so a run lasts the longer of its RATE-6 waits and its CPU
   * at the function's share of a vCPU.
   */
  deletionCpuSecondsPerCheck: 0.0029,
  /**
   * CPU seconds a deletion run spends per source apart from its samples (the source's State, bodies and
   * takedowns read, its queues and walk cursors queried), one full vCPU: the same bench's quiet run (40
   * sources, nothing due) took 0.33 s and 0.93 s in two sessions = 8–23 ms a source; the upper end.
   * Issue 28 (deletion-cpu, 2026-12-04): 8–20 ms a source in six runs of that bench (these reads are
   * untouched; the sampler's share taken out) — the upper end kept.
   * Issue 28 (deletion-loads, 2026-12-04, `nice -n 5 npm run -s bench -- deletion-cpu`): the profile of
   * the quiet run is the SDK's per-call work (signing, HTTP, middleware; zod, luxon and the admission
   * < 1 ms a run), so the loads cost ∝ their round trips. The sources' states and the walk cursors are
   * now one BatchGet a run each (not one call a source / a body): reads a run at 40 sources 361 → 283
   * (Query 281, BatchGet 40 → 2, GetItem 40 → 0). Two runs each on this machine: 22 and 15 ms a source
   * before, 6 and 14 ms after — the quiet run is one 0.2–0.9 s sample, too noisy to claim more than the
   * round trips give; kept: the old 23 ms upper end × 283/361 round trips ≈ 18 ms.
   */
  deletionCpuSecondsPerSourceRun: 0.018,
  /**
   * CPU seconds of one sync run on one full vCPU, the engine's own, per kind (the demo council's OParl
   * source as the cost bench runs it: 5 terms, 150 objects a list, pages of 10 — the bill scales it to a
   * real source; the fake ALLRIS site): `npm run bench -- sync-cpu` (bench/sync-cpu.ts) with the local
   * DynamoDB/S3/SQS in a child process, `process.cpuUsage()` of the engine's process over 5 warm runs
   * (20 of the unchanged OParl run), the in-process council's share taken out by a CPU profile of as many
   * runs again (stacks in demo/, fake-ris-html, node's HTTP server). Measured 2026-12-03 13:13 UTC (the
   * sync-cpu branch's last cut) on this 2-core machine under the session's load (12–14). Not in it: the
   * Upstash slot round trip per request (in memory there). Was the cost bench's own process CPU, peers and council included (an upper bound: OParl
   * unchanged 0.037 s, nightly full 0.593 s; scraper unchanged 0.126 s, changed 0.263 s, nightly full 0.764 s).
   */
  syncCpuSecondsPerRun: {
    oparl: { nightlyFull: 0.227, changed: 0.0275, unchanged: 0.0182 },
    scraper: { nightlyFull: 0.596, changed: 0.1195, unchanged: 0.1063 },
  },
  /**
   * The same bench on the code before the sync-CPU pass (fffa3b8), run at the same time as the one above
   * (the two processes side by side, so both met the same load). A second such pair 10 minutes earlier
   * (the last two cuts not in it) read before → after: OParl unchanged 24.8 → 25.1 ms, changed 30.7 →
   * 43.5, nightly full 308 → 338; scraper unchanged 143 → 113, changed 151 → 124, nightly full 1,269 →
   * 761 — run-to-run spread on this loaded machine is ±15–25 %, more than the OParl cuts; the scraper's
   * are above it in both pairs.
   */
  syncCpuSecondsPerRunBeforeCuts: {
    oparl: { nightlyFull: 0.278, changed: 0.0279, unchanged: 0.0169 },
    scraper: { nightlyFull: 0.965, changed: 0.141, unchanged: 0.124 },
  },
  /** Bytes of one Sources item (a council's config): each deletion-check shard scans the table a run. */
  sourceItemBytes: 1_000,
  /**
   * Issue 28, DynamoDB units of one unchanged deletion-check sample (DEL-2) before the sample walk:
   * measured with the cost bench's own stage (bench/cost/deletion-samples.ts, 24 samples in 4 hourly
   * runs, the meter billing as DynamoDB bills) on the code at 3e671ef: each sample moved the document's
   * `nextAttemptAt` — a 1–2 KB item: 2 units in the table, 4 in `byNextAttempt` (its sort key moved:
   * old copy deleted, new put), 2 in `bySource` = 8 (the model had assumed 4, and 1 before that). Reads
   * per sample: the Documents table's queue queries at that density (11 units for 24 samples). The
   * lever's "off" side; its "on" side is measured on every bench run.
   */
  deletionSampleUnitsBeforeWalk: { writeUnits: 8, readUnits: 0.46 },
  /** The VM comparison: the database beside the files on one disk, snapshots of it. */
  vmDatabaseGb: 40,
  /** Snapshot size ÷ the database (incremental daily snapshots kept a week). */
  vmSnapshotFactor: 1.5,
} as const;
