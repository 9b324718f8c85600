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
  textBytesPerFile: 20_000,
  /** Files already stored per source (history): the deletion check samples each once a week (DEL-2). */
  storedFilesPerSource: 2_000,
  /** Work of one file apart from the pace wait: download at a council's bandwidth, pdf.js text. */
  fileWorkSeconds: 1.5,
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
  /** Upstash commands per paced request: the politeness bench's round-trip figure (≤ 2). */
  upstashCommandsPerRequest: 2,
  /**
   * Lambda's SQS poller long-polls an idle queue: ~5 pollers × 20 s polls ≈ 15 ReceiveMessage calls a
   * minute, billed as SQS requests whether or not a message comes.
   */
  sqsIdleReceivesPerMinute: 15,
  /** Lambda's SQS pollers sharing a minute's messages (a batch holds what one poll returns). */
  sqsPollers: 5,
  /**
   * A batch's invocation lasts as long as its longest run; runs of one kind differ in lists and
   * pages, so the billed time of a batch is taken as its mean run × this.
   */
  batchLongestRunFactor: 1.3,
  /** CloudWatch: metric series (name × dimension values), alarms and dashboards of the stack. */
  metricSeries: 20,
  // Issue 25 point 4: + the API's invocation alarm.
  alarms: 9,
  dashboards: 1,
  /** Logs are kept 30 days; stored size ≈ ingested × 0.15 (CloudWatch compresses archives). */
  logsStoredFraction: 0.15,
  /** Secrets read per cold start (the Upstash token); cold starts per month across functions. */
  coldStartsPerMonth: 3_000,
  /**
   * Issue 25 point 4: requests to the OParl API's distribution per source and week (what WAF inspects,
   * each billed, cached or not): a few incremental clients polling each list, and browsers.
   */
  apiRequestsPerSourcePerWeek: 2_000,
  /** A missed API request's billed time: one Query page and its objects (bench mirror-api: ≈ 30 ms, rounded up). */
  apiInvocationSeconds: 0.1,
} as const;
