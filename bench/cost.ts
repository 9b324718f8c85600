import { pathToFileURL } from 'node:url';
import {
  type AttributeValue,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/client-dynamodb';
import { startFakeCouncil } from '../demo';
import { FUNCTION_MEMORY_MB, MIRROR_API_MAX_INSTANCES, SYNC_BATCH_SIZE } from '../infra/function-sizes';
import { REQUEST_INTERVAL_MIN_SECONDS, SCRAPER_DEFAULT_INTERVAL_SECONDS } from '../shared/config';
import { DEL_SERVER_SPACING_MS, HOSTS_IN_PARALLEL, PHO_RECHECK_MS } from '../shared/documents';
import { INLINE_ITEM_MAX_BYTES, listCountKey } from '../shared/mirror';
import { logger, logRequestEvent, MetricsBuffer } from '../shared/observability';
import { plannerTick } from '../shared/planner';
import { DEFAULT_MAX_CONCURRENT_SYNCS, simulateCadence } from '../shared/schedule';
import { type AwsClients, LIST_INDEX, STATE_TABLE } from '../shared/store';
import { harness, TestClock } from '../test/oparl/support';
import { scraperHarness } from '../test/scraper/support';
import { type AwsTestbed, startAwsTestbed } from '../test/support/aws';
import { ALLRIS_DISTRICTS, startFakeRisHtml } from '../test/support/fake-ris-html';
import { ASSUMPTIONS } from './cost/assumptions';
import { dynamoItemBytes, STORAGE_OVERHEAD_BYTES_PER_ITEM } from './cost/item-size';
import {
  apiFloodCeilingEurPerHour,
  cpuSlowdown,
  type MonthlyUsage,
  pacedRunSeconds,
  priceUsage,
  readUnits,
  WEEKS_PER_MONTH,
  writeUnits,
} from './cost/model';
import { PRICES, PRICES_READ_ON, USD_TO_EUR } from './cost/prices';
import { plannerBenchDeps, STEADY_T0, seedSteadySources } from './planner';

/**
 * `npm run bench -- cost [sources]`: what the ingestor costs per month (issue 18).
 *
 * 1. Measures, with the real engines against local peers (dynalite, s3rver, fauxqs): per kind of run
 *    (first full, nightly full, unchanged and changed incremental) of an OParl source (the demo council)
 *    and of a scraped ALLRIS site (the fake RIS HTML server) the HTTP requests, the work (CPU seconds of
 *    this process, the in-process peers' included; the pace wait excluded: the clocks are virtual), DynamoDB request units and S3 calls (counted by a
 *    client middleware, units as DynamoDB bills them), bytes stored and log bytes at INFO; and the
 *    planner's reads, writes, SQS calls and time per tick and per start; and, read back from the State
 *    table after the runs, each source's mirror index (items, their copies in `byList`, list counters)
 *    with DynamoDB's item size rule (bench/cost/item-size.ts), billed as storage.
 * 2. Simulates one week of every source with the real cadence decisions (`simulateCadence`, the code of
 *    `ingestor simulate cadence`): session days, changes, nightly full syncs (bench/cost/assumptions.ts).
 * 3. Bills it (bench/cost/model.ts, bench/cost/prices.ts): a sync's Lambda time is its wall time, so
 *    requests × the host's interval + work.
 */

interface Meter {
  readUnits: number;
  writeUnits: number;
  dynamoCalls: number;
  s3Puts: number;
  s3Gets: number;
  s3BytesPut: number;
  sqsRequests: number;
  /** DynamoDB write units by command and key prefix (what an unchanged run writes, and why). */
  writesBy: Record<string, number>;
  /** DynamoDB read units by command and key prefix. */
  readsBy: Record<string, number>;
  /** Units of items that grow with the objects of a source (mirror index, documents, session days). */
  objectReadUnits: number;
  objectWriteUnits: number;
}

const zeroMeter = (): Meter => ({
  readUnits: 0,
  writeUnits: 0,
  dynamoCalls: 0,
  s3Puts: 0,
  s3Gets: 0,
  s3BytesPut: 0,
  sqsRequests: 0,
  writesBy: {},
  readsBy: {},
  objectReadUnits: 0,
  objectWriteUnits: 0,
});

/** A key's family for the meter: `SOURCE#…` items by their sort-key prefix, others by partition prefix. */
function keyFamily(key: Record<string, unknown> | undefined): string {
  const plain = (v: unknown) => String((v as { S?: string } | undefined)?.S ?? v ?? '');
  const pk = plain(key?.pk);
  const sk = plain(key?.sk);
  if (pk.startsWith('SOURCE#')) return sk.split(/[#:]/)[0] ?? '';
  if (pk === '' && key && 'documentId' in key) return 'DOCUMENT';
  return pk.split(/[#:]/)[0] || Object.keys(key ?? {})[0] || '?';
}

/** Items that grow with a source's objects: the mirror index, documents, session days (per meeting). */
const OBJECT_FAMILIES = new Set(['MIRROR', 'DOCUMENT', 'documentId', 'SESSION', 'object-hash']);

const bytesOf = (v: unknown): number => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));

/** Counts every call of the clients (a middleware on the real SDK clients; the peers are real). */
function attachMeter(clients: AwsClients): { read(): Meter; reset(): void } {
  let m = zeroMeter();
  clients.dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const name = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      const output = out.output as unknown as Record<string, unknown>;
      m.dynamoCalls += 1;
      // A BatchGet names its consistency per table, inside RequestItems.
      const batchTables = Object.values(
        (input.RequestItems ?? {}) as Record<string, { ConsistentRead?: boolean }>,
      );
      const consistent = input.ConsistentRead === true || batchTables.some((t) => t.ConsistentRead === true);
      const read = (family: string, units: number) => {
        m.readUnits += units;
        const label = `${name.replace(/Command$/, '')} ${family}`;
        m.readsBy[label] = (m.readsBy[label] ?? 0) + units;
        if (OBJECT_FAMILIES.has(family)) m.objectReadUnits += units;
      };
      if (/^(Get|Query|Scan)/.test(name)) {
        const items = (output.Items as unknown[] | undefined) ?? (output.Item ? [output.Item] : []);
        const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
        const key = (input.Key as Record<string, unknown> | undefined) ?? {
          pk: values[':pk'],
          sk: values[':prefix'] ?? values[':sk'],
        };
        read(
          keyFamily(key),
          readUnits(
            items.reduce<number>((s, i) => s + bytesOf(i), 0),
            consistent,
          ),
        );
      } else if (/^BatchGet/.test(name)) {
        const responses = (output.Responses ?? {}) as Record<string, Record<string, unknown>[]>;
        for (const items of Object.values(responses))
          for (const i of items) read(keyFamily(i), readUnits(bytesOf(i), consistent));
      } else if (/^BatchWrite/.test(name)) {
        const req = (input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: unknown } }[]>;
        for (const list of Object.values(req))
          for (const r of list) m.writeUnits += writeUnits(bytesOf(r.PutRequest?.Item));
      } else if (/^(Put|Update|Delete)/.test(name)) {
        // A write is billed on the larger of the item before and after; the item written (or, for an
        // update, the attributes it sets) stands for it.
        const units = writeUnits(bytesOf(input.Item ?? input.ExpressionAttributeValues ?? input.Key));
        m.writeUnits += units;
        const key = (input.Item ?? input.Key) as Record<string, { S?: string }> | undefined;
        const rawSk = String(key?.sk?.S ?? key?.sk ?? '');
        // Object index items are keyed by a content hash: one label for all of them.
        const sk = /^[0-9a-f]{40}$/.test(rawSk)
          ? 'object-hash'
          : rawSk === ''
            ? keyFamily(key as Record<string, unknown> | undefined)
            : rawSk.split(/[#:]/)[0];
        const label = `${name.replace(/Command$/, '')} ${sk}`;
        m.writesBy[label] = (m.writesBy[label] ?? 0) + units;
        if (OBJECT_FAMILIES.has(sk ?? '')) m.objectWriteUnits += units;
      }
      return out;
    },
    { step: 'initialize', name: 'costMeter' },
  );
  clients.s3.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      const input = args.input as { Body?: unknown };
      if (/^(Put|Copy|List|CreateMultipart|UploadPart|CompleteMultipart)/.test(name)) {
        m.s3Puts += 1;
        const body = input.Body;
        if (typeof body === 'string') m.s3BytesPut += Buffer.byteLength(body);
        else if (body instanceof Uint8Array) m.s3BytesPut += body.byteLength;
      } else m.s3Gets += 1;
      return next(args);
    },
    { step: 'initialize', name: 'costMeter' },
  );
  clients.sqs.middlewareStack.add(
    (next) => async (args) => {
      m.sqsRequests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'costMeter' },
  );
  return {
    read: () => ({ ...m, writesBy: { ...m.writesBy }, readsBy: { ...m.readsBy } }),
    reset: () => {
      m = zeroMeter();
    },
  };
}

/** The bytes the logger writes at INFO while `fn` runs (what CloudWatch Logs would ingest). */
async function logBytesOf<T>(fn: () => Promise<T>): Promise<{ result: T; logBytes: number }> {
  const write = process.stdout.write.bind(process.stdout);
  const level = logger.getLevelName();
  let logBytes = 0;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    logBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    return true;
  }) as typeof process.stdout.write;
  logger.setLogLevel('INFO');
  try {
    return { result: await fn(), logBytes };
  } finally {
    logger.setLogLevel(level);
    process.stdout.write = write;
  }
}

/** One kind of run, measured. */
export interface RunProfile {
  requests: number;
  workSeconds: number;
  readUnits: number;
  writeUnits: number;
  s3Puts: number;
  s3Gets: number;
  s3BytesPut: number;
  logBytes: number;
  /** The read and write units of items that grow with the source's objects (in the totals above). */
  objectReadUnits: number;
  objectWriteUnits: number;
  writesBy?: Record<string, number>;
  readsBy?: Record<string, number>;
}

async function measureRun(
  meter: ReturnType<typeof attachMeter>,
  run: () => Promise<{ requests: number }>,
): Promise<RunProfile> {
  meter.reset();
  // Work is CPU time, not wall time: on a shared machine wall time counts other processes' turns. The
  // local peers run in this process, so their CPU is in it too — an upper bound of the run's own work.
  const started = process.cpuUsage();
  const { result, logBytes } = await logBytesOf(run);
  const cpu = process.cpuUsage(started);
  const workSeconds = (cpu.user + cpu.system) / 1e6;
  const m = meter.read();
  return {
    requests: result.requests,
    workSeconds,
    readUnits: m.readUnits,
    writeUnits: m.writeUnits,
    s3Puts: m.s3Puts,
    s3Gets: m.s3Gets,
    s3BytesPut: m.s3BytesPut,
    logBytes,
    objectReadUnits: m.objectReadUnits,
    objectWriteUnits: m.objectWriteUnits,
    writesBy: m.writesBy,
    readsBy: m.readsBy,
  };
}

/** A run `k` times over (more bodies: every quantity, requests too). */
const scaled = (p: RunProfile, k: number): RunProfile => ({
  requests: p.requests * k,
  workSeconds: p.workSeconds * k,
  readUnits: p.readUnits * k,
  writeUnits: p.writeUnits * k,
  s3Puts: p.s3Puts * k,
  s3Gets: p.s3Gets * k,
  s3BytesPut: p.s3BytesPut * k,
  logBytes: p.logBytes * k,
  objectReadUnits: p.objectReadUnits * k,
  objectWriteUnits: p.objectWriteUnits * k,
});

/**
 * A run over `k` times the objects on the same pages: what grows with objects (their index reads and
 * writes, S3, work) is scaled; requests and what is per page or per list (cursor, list marks) are not.
 */
const objectScaled = (p: RunProfile, k: number): RunProfile => ({
  ...p,
  workSeconds: p.workSeconds * k,
  readUnits: p.readUnits + p.objectReadUnits * (k - 1),
  writeUnits: p.writeUnits + p.objectWriteUnits * (k - 1),
  s3Puts: p.s3Puts * k,
  s3Gets: p.s3Gets * k,
  s3BytesPut: p.s3BytesPut * k,
  objectReadUnits: p.objectReadUnits * k,
  objectWriteUnits: p.objectWriteUnits * k,
});

/** Items of one kind as the local peer holds them: how many, and their DynamoDB size in all. */
interface ItemSample {
  items: number;
  bytes: number;
}

/**
 * The mirror index of one source after the real engine's runs (shared/mirror store.ts `putIndex`): what
 * the State table stores for its objects beside the source's own items.
 */
interface MirrorIndexSample {
  /** One item per mirrored object, embedded ones included (`MIRROR#<source>#<type>`, sk = id hash). */
  table: ItemSample;
  /**
   * Their copies in the State table's global indexes, by index: `byList` holds those of a body's
   * objects (table and index keys, `deleted`, `takedown` and the inline copy `o`; shared/store tables.ts).
   */
  indexes: Record<string, ItemSample>;
  /** The API list counters (`APILISTCOUNT#<source>`, one per list: body × type). */
  counters: ItemSample;
}

/** Every item a Query or Scan returns, sized by DynamoDB's rule (bench/cost/item-size.ts). */
async function sampleItems(
  bed: AwsTestbed,
  request: { query: QueryCommandInput } | { scan: ScanCommandInput },
): Promise<ItemSample> {
  const sample: ItemSample = { items: 0, bytes: 0 };
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await bed.clients.dynamo.send(
      'query' in request
        ? new QueryCommand({ ...request.query, ExclusiveStartKey: start })
        : new ScanCommand({ ...request.scan, ExclusiveStartKey: start }),
    );
    for (const item of out.Items ?? []) {
      sample.items += 1;
      sample.bytes += dynamoItemBytes(item);
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return sample;
}

/**
 * Reads one source's mirror index back from the local State table. A Scan with a key-prefix filter
 * (not a Query per type) so that no partition is missed, whatever types the engine wrote; the local
 * table is small. Each global index is scanned as well, for the copies as DynamoDB projects them.
 */
async function sampleMirrorIndex(bed: AwsTestbed, sourceId: string): Promise<MirrorIndexSample> {
  const TableName = bed.env.STATE_TABLE;
  const ofSource = {
    FilterExpression: 'begins_with(pk, :prefix)',
    ExpressionAttributeValues: { ':prefix': { S: `MIRROR#${sourceId}#` } },
  };
  const table = await sampleItems(bed, { scan: { TableName, ...ofSource } });
  const indexes: Record<string, ItemSample> = {};
  for (const { indexName } of STATE_TABLE.globalIndexes) {
    const copies = await sampleItems(bed, { scan: { TableName, IndexName: indexName, ...ofSource } });
    if (copies.items > 0) indexes[indexName] = copies;
  }
  const counters = await sampleItems(bed, {
    query: {
      TableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: listCountKey(sourceId, '').pk } },
    },
  });
  return { table, indexes, counters };
}

interface KindProfiles {
  firstFull: RunProfile;
  nightlyFull: RunProfile;
  unchanged: RunProfile;
  changed: RunProfile;
}

interface PlannerProfile {
  tickSeconds: number;
  tickReadUnits: number;
  perStart: { seconds: number; readUnits: number; writeUnits: number; sqsRequests: number };
  startsMeasured: number;
}

export interface CostBenchOptions {
  sources?: number;
  /** Issue 25 point 4: bill the API's rate-based WAF rule (`-c apiWaf=true`); off as in the stack. */
  apiWaf?: boolean;
  log?: (line: string) => void;
}

export async function runCostBench(opts: CostBenchOptions = {}) {
  const sources = opts.sources ?? 1_000;
  const log = opts.log ?? (() => {});
  const A = ASSUMPTIONS;
  const bed = await startAwsTestbed();
  const meter = attachMeter(bed.clients);
  let oparl: KindProfiles;
  let scraper: KindProfiles;
  let planner: PlannerProfile;
  let oparlIndex: MirrorIndexSample;
  let scraperIndex: MirrorIndexSample;
  let requestLogLineBytes = 0;
  let summaryLineBytes = 0;
  try {
    // 1a. OParl: the demo council with the pages per list of a real list (see oparlObjectScale).
    const clock = new TestClock(Date.parse('2026-11-30T10:00:00+01:00'));
    const fake = await startFakeCouncil({ now: clock.now, bodies: 1, objectsPerList: 150, pageSize: 10 });
    try {
      const h = harness(bed, fake.systemUrl, clock, 'cost');
      const firstFull = await measureRun(meter, () => h.sync('full'));
      clock.advance(10 * 60_000);
      const unchanged = await measureRun(meter, () => h.sync('incremental'));
      clock.advance(10 * 60_000);
      fake.mutate(
        Array.from({ length: A.objectsPerChange }, (_, i) => ({
          op: 'update' as const,
          list: 'paper' as const,
          n: i + 1,
          set: { name: `Cost ${i}` },
        })),
      );
      clock.advance(60_000);
      const changed = await measureRun(meter, () => h.sync('incremental'));
      clock.advance(12 * 3_600_000);
      const nightlyFull = await measureRun(meter, () => h.sync('full'));
      oparl = { firstFull, nightlyFull, unchanged, changed };
      log(`oparl: ${JSON.stringify(oparl)}`);
      oparlIndex = await sampleMirrorIndex(bed, h.source.sourceId);
      log(`oparl mirror index: ${JSON.stringify(oparlIndex)}`);
    } finally {
      await fake.close();
    }

    // 1b. A scraped ALLRIS site (fake RIS HTML: captured Hamburg district pages).
    const site = await startFakeRisHtml({ districts: [...ALLRIS_DISTRICTS] });
    const s = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'cost' });
    try {
      const firstFull = await measureRun(meter, () => s.scrape('full'));
      s.clock.advance(3_600_000);
      const unchanged = await measureRun(meter, () => s.scrape());
      site.setCalendarChanged(true);
      site.setAgendaChanged(true);
      s.clock.advance(3_600_000);
      const changed = await measureRun(meter, () => s.scrape());
      s.clock.advance(12 * 3_600_000);
      const nightlyFull = await measureRun(meter, () => s.scrape('full'));
      scraper = { firstFull, nightlyFull, unchanged, changed };
      log(`scraper: ${JSON.stringify(scraper)}`);
      scraperIndex = await sampleMirrorIndex(bed, s.source.sourceId);
      log(`scraper mirror index: ${JSON.stringify(scraperIndex)}`);
    } finally {
      await s.close();
      await site.close();
    }

    // 1c. One request's log line as the production fetcher writes it (shared/observability/request-log).
    requestLogLineBytes = (
      await logBytesOf(async () => {
        // At info, as every request was logged before issue 18 (now answered ones are debug lines).
        logRequestEvent(
          {
            kind: 'request',
            sourceId: 'src-000123',
            host: 'ris.example-stadt.de',
            url: 'https://ris.example-stadt.de/oparl/v1/body/1/paper?page=7&modified_since=2026-11-30T09%3A00%3A00Z',
            purpose: 'api',
            method: 'GET',
            attempt: 1,
            hop: 0,
            status: 200,
            durationMs: 184,
          } as Parameters<typeof logRequestEvent>[0],
          {
            log: (message, fields) => logger.info(message, fields),
            metrics: new MetricsBuffer({ write: () => {} }),
          },
        );
        return { requests: 0 };
      })
    ).logBytes;

    // 1d. The run's summary line at info (shared/sync/batch.ts "sync message done"), as written.
    summaryLineBytes = (
      await logBytesOf(async () => {
        logger.info('sync message done', {
          sourceId: 'src-000123',
          status: 'completed',
          requests: 17,
          objects: { new: 0, modified: 3, deleted: 0 },
          failures: [],
        });
        return { requests: 0 };
      })
    ).logBytes;

    // 1e. The planner: a warm tick with starts, and one right after with none (its fixed cost).
    const t0 = STEADY_T0;
    await seedSteadySources(bed.clients.doc, bed.env, 200, t0);
    const deps = plannerBenchDeps(bed, 1_000);
    const tick = async (at: number) => {
      meter.reset();
      const started = performance.now();
      const r = await plannerTick(deps, new Date(at));
      return { seconds: (performance.now() - started) / 1000, starts: r.started.length, m: meter.read() };
    };
    await tick(t0); // cold: reads Sources and the STATE ids once (not the steady state)
    const busy = await tick(t0 + 5 * 60_000);
    const idle = await tick(t0 + 5 * 60_000 + 1);
    const starts = Math.max(1, busy.starts - idle.starts);
    planner = {
      tickSeconds: idle.seconds,
      tickReadUnits: idle.m.readUnits,
      perStart: {
        seconds: Math.max(0, busy.seconds - idle.seconds) / starts,
        readUnits: Math.max(0, busy.m.readUnits - idle.m.readUnits) / starts,
        writeUnits: Math.max(0, busy.m.writeUnits - idle.m.writeUnits) / starts,
        sqsRequests: Math.max(0, busy.m.sqsRequests - idle.m.sqsRequests) / starts,
      },
      startsMeasured: busy.starts,
    };
    log(`planner: ${JSON.stringify(planner)}`);
  } finally {
    await bed.stop();
  }

  // 2. One simulated week per source kind, with the real cadence decisions.
  const week = (kind: 'oparl' | 'scraper', profiles: KindProfiles, variant: number) => {
    const interval = kind === 'oparl' ? REQUEST_INTERVAL_MIN_SECONDS : SCRAPER_DEFAULT_INTERVAL_SECONDS;
    const days = ['2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04'];
    const sessionDays = Array.from(
      { length: A.sessionDaysPerWeek },
      (_, i) => days[(variant + i * 2) % 5] as string,
    );
    const changeAt: string[] = [];
    for (const day of days) {
      for (let i = 0; i < A.changesPerWeekday; i += 1) {
        const minutes = 8 * 60 + Math.round(((i + 0.5 + variant / 7) * 600) / A.changesPerWeekday);
        changeAt.push(
          `${day}T${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`,
        );
      }
    }
    const sim = simulateCadence({
      from: '2026-11-30T00:00',
      days: 7,
      sessionDays,
      changeAt,
      fullSyncs: true,
      syncSeconds: Math.round(pacedRunSeconds({ ...profiles.unchanged, intervalSeconds: interval })),
    });
    const changes = changeAt.map((c) => Date.parse(`${c}:00+01:00`));
    let previous = Number.NEGATIVE_INFINITY;
    const counts = { full: 0, changed: 0, unchanged: 0 };
    for (const run of sim.runs) {
      const at = Date.parse(run.at);
      if (run.kind !== 'incremental') counts.full += 1;
      else if (changes.some((c) => c > previous && c <= at)) counts.changed += 1;
      else counts.unchanged += 1;
      previous = at;
    }
    return counts;
  };
  const VARIANTS = 7;
  const weekly = (kind: 'oparl' | 'scraper', profiles: KindProfiles) => {
    const sum = { full: 0, changed: 0, unchanged: 0 };
    for (let v = 0; v < VARIANTS; v += 1) {
      const c = week(kind, profiles, v);
      sum.full += c.full / VARIANTS;
      sum.changed += c.changed / VARIANTS;
      sum.unchanged += c.unchanged / VARIANTS;
    }
    return sum;
  };
  // A source of 1.5 bodies with 10× the demo's objects per page (see assumptions).
  const oparlReal: KindProfiles = {
    firstFull: scaled(objectScaled(oparl.firstFull, A.oparlObjectScale), A.bodiesPerOparlSource),
    nightlyFull: scaled(objectScaled(oparl.nightlyFull, A.oparlObjectScale), A.bodiesPerOparlSource),
    unchanged: scaled(oparl.unchanged, A.bodiesPerOparlSource),
    changed: scaled(oparl.changed, A.bodiesPerOparlSource),
  };
  const oparlWeek = weekly('oparl', oparlReal);
  const scraperWeek = weekly('scraper', scraper);
  log(`week per source: oparl ${JSON.stringify(oparlWeek)}, scraper ${JSON.stringify(scraperWeek)}`);

  // 3. Monthly quantities.
  const perMonth = (perWeek: number) => perWeek * WEEKS_PER_MONTH;
  const kinds = [
    { n: sources * A.oparlShare, p: oparlReal, w: oparlWeek, interval: REQUEST_INTERVAL_MIN_SECONDS },
    {
      n: sources * (1 - A.oparlShare),
      p: scraper,
      w: scraperWeek,
      interval: SCRAPER_DEFAULT_INTERVAL_SECONDS,
    },
  ];
  const robotsPerWeek = 7; // robots.txt is re-read once a day per host (ROB cache lifetime 24 h)
  // Work measured here on one core is stretched by the function's CPU share (model.ts cpuSlowdown).
  const syncSlowdown = cpuSlowdown(FUNCTION_MEMORY_MB.sync);
  const sync = {
    invocations: 0,
    seconds: 0,
    /** CPU work of all runs at the sync function's CPU share (a batch shares one invocation's CPU). */
    workSeconds: 0,
    requests: 0,
    readUnits: 0,
    writeUnits: 0,
    s3Puts: 0,
    s3Gets: 0,
    logBytes: 0,
  };
  const syncRequestLogBytes = { atInfo: 0 };
  let storageS3Bytes = 0;
  for (const k of kinds) {
    const runs: [RunProfile, number][] = [
      [k.p.nightlyFull, k.w.full],
      [k.p.changed, k.w.changed],
      [k.p.unchanged, k.w.unchanged],
    ];
    for (const [p, perWeek] of runs) {
      const count = perMonth(perWeek) * k.n;
      sync.invocations += count;
      sync.seconds +=
        count *
        pacedRunSeconds({ ...p, workSeconds: p.workSeconds * syncSlowdown, intervalSeconds: k.interval });
      sync.workSeconds += count * p.workSeconds * syncSlowdown;
      sync.requests += count * p.requests;
      sync.readUnits += count * p.readUnits;
      sync.writeUnits += count * p.writeUnits;
      sync.s3Puts += count * p.s3Puts;
      sync.s3Gets += count * p.s3Gets;
      sync.logBytes += count * p.logBytes;
      syncRequestLogBytes.atInfo += count * p.requests * requestLogLineBytes;
    }
    const robots = perMonth(robotsPerWeek) * k.n;
    sync.requests += robots;
    sync.seconds += robots * k.interval;
    storageS3Bytes += k.n * k.p.firstFull.s3BytesPut;
  }
  const syncsPerMinute = sync.invocations / (WEEKS_PER_MONTH * 7 * 24 * 60);
  const ticks = WEEKS_PER_MONTH * 7 * 24 * 60;
  const plannerSeconds =
    (ticks * planner.tickSeconds + sync.invocations * planner.perStart.seconds) *
    cpuSlowdown(FUNCTION_MEMORY_MB.planner);

  const filesPerMonth = perMonth(A.filesPerSourcePerWeek) * sources;
  const hourlyRuns = WEEKS_PER_MONTH * 7 * 24;
  const fileSeconds =
    filesPerMonth *
    pacedRunSeconds({
      requests: 1,
      intervalSeconds: REQUEST_INTERVAL_MIN_SECONDS,
      workSeconds: A.fileWorkSeconds * cpuSlowdown(FUNCTION_MEMORY_MB.files),
      hostsInParallel: HOSTS_IN_PARALLEL,
    });
  // DEL-2: every stored file sampled once a week (HEAD), 2 s apart per server, HOSTS_IN_PARALLEL servers at once.
  const headsPerMonth = perMonth(A.storedFilesPerSource) * sources;
  const deletionSeconds = pacedRunSeconds({
    requests: headsPerMonth,
    intervalSeconds: DEL_SERVER_SPACING_MS / 1000,
    workSeconds: headsPerMonth * 0.05 * cpuSlowdown(FUNCTION_MEMORY_MB.deletionCheck),
    hostsInParallel: HOSTS_IN_PARALLEL,
  });
  // PHO-2: each person's photo re-checked every 30 days; ~60 persons per body.
  const photosPerMonth = ((60 * 30 * 86_400_000) / PHO_RECHECK_MS) * sources;
  const photoSeconds = pacedRunSeconds({
    requests: photosPerMonth,
    intervalSeconds: REQUEST_INTERVAL_MIN_SECONDS,
    workSeconds: photosPerMonth * 0.05 * cpuSlowdown(FUNCTION_MEMORY_MB.photos),
    hostsInParallel: HOSTS_IN_PARALLEL,
  });
  const visits = perMonth(A.previewVisitsPerSourcePerWeek) * sources;
  const fetches = sync.requests + filesPerMonth + headsPerMonth + photosPerMonth;

  const storedFiles = sources * (A.storedFilesPerSource + A.filesPerSourcePerWeek * 4);
  const s3StorageGb = (storageS3Bytes + storedFiles * (A.fileBytes + A.textBytesPerFile)) / 1e9;
  // The mirror index, measured: the demo's counts scaled as its runs are (objectScaled, then by bodies),
  // a scraped site's as measured. Its sizes are the demo's own items, so they follow the code (the inline
  // bound INLINE_ITEM_MAX_BYTES, the keys) with no figure of their own here. The source's `system` and
  // `body` items are scaled with the objects too: 2 of the demo's ≈ 1,500, an over-count below 0.2 %.
  // Counters are per list (body × type): more bodies add lists, more objects per list do not.
  type MirrorKind = { n: number; sample: MirrorIndexSample; objects: number; lists: number };
  const mirrorKinds: MirrorKind[] = [
    {
      n: sources * A.oparlShare,
      sample: oparlIndex,
      objects: A.oparlObjectScale * A.bodiesPerOparlSource,
      lists: A.bodiesPerOparlSource,
    },
    { n: sources * (1 - A.oparlShare), sample: scraperIndex, objects: 1, lists: 1 },
  ];
  const none: ItemSample = { items: 0, bytes: 0 };
  const mirrorIndexNames = [...new Set(mirrorKinds.flatMap((k) => Object.keys(k.sample.indexes)))];
  /** One kind of item over the fleet: items, their DynamoDB size, and what storage bills (+ overhead). */
  const overFleet = (of: (k: MirrorKind) => ItemSample, scale: 'objects' | 'lists') => {
    const items = mirrorKinds.reduce((sum, k) => sum + k.n * k[scale] * of(k).items, 0);
    const bytes = mirrorKinds.reduce((sum, k) => sum + k.n * k[scale] * of(k).bytes, 0);
    return {
      perSource: items / sources,
      avgBytes: items === 0 ? 0 : bytes / items,
      storedBytes: bytes + items * STORAGE_OVERHEAD_BYTES_PER_ITEM,
    };
  };
  const mirrorItems = overFleet((k) => k.sample.table, 'objects');
  const mirrorCounters = overFleet((k) => k.sample.counters, 'lists');
  const mirrorCopies = Object.fromEntries(
    mirrorIndexNames.map((index) => [index, overFleet((k) => k.sample.indexes[index] ?? none, 'objects')]),
  );
  const mirrorTableBytes = mirrorItems.storedBytes + mirrorCounters.storedBytes;
  const mirrorIndexBytes = Object.values(mirrorCopies).reduce((sum, c) => sum + c.storedBytes, 0);
  const dynamoStorageGb =
    (sources * 20 * A.stateItemBytes + storedFiles * A.documentItemBytes + mirrorTableBytes) / 1e9;
  const dynamoIndexStorageGb = mirrorIndexBytes / 1e9;
  // Answered requests log at debug (shared/observability/request-log.ts): a steady-state run writes its
  // summary line; before issue 18 every request wrote a line at info.
  const logBytesPerSync = {
    before: (sync.logBytes + syncRequestLogBytes.atInfo) / sync.invocations + summaryLineBytes,
    after: sync.logBytes / sync.invocations + summaryLineBytes,
  };
  const logsIngestedGb = (logBytesPerSync.after * sync.invocations) / 1e9;

  // Several sources per sync invocation (infra SYNC_BATCH_SIZE, worked concurrently): the planner's
  // messages of a minute are picked up by the poller in batches; an invocation lasts as long as its
  // longest run.
  const recordsPerInvocation = Math.max(1, Math.min(SYNC_BATCH_SIZE, syncsPerMinute / A.sqsPollers));
  // The runs of a batch share the invocation's CPU: it lasts at least as long as their work together.
  const syncFunction = (perInvocation: number, longest: number) => ({
    invocations: sync.invocations / perInvocation,
    seconds: Math.max((sync.seconds / perInvocation) * longest, sync.workSeconds),
    memoryMb: FUNCTION_MEMORY_MB.sync,
    arch: 'arm64' as const,
  });

  const usage: MonthlyUsage = {
    lambda: {
      planner: {
        invocations: ticks,
        seconds: plannerSeconds,
        memoryMb: FUNCTION_MEMORY_MB.planner,
        arch: 'arm64',
      },
      sync: syncFunction(recordsPerInvocation, recordsPerInvocation > 1 ? A.batchLongestRunFactor : 1),
      files: {
        invocations: hourlyRuns,
        seconds: fileSeconds,
        memoryMb: FUNCTION_MEMORY_MB.files,
        arch: 'arm64',
      },
      deletionCheck: {
        invocations: hourlyRuns,
        seconds: deletionSeconds,
        memoryMb: FUNCTION_MEMORY_MB.deletionCheck,
        arch: 'arm64',
      },
      photos: {
        invocations: WEEKS_PER_MONTH,
        seconds: photoSeconds,
        memoryMb: FUNCTION_MEMORY_MB.photos,
        arch: 'arm64',
      },
      preview: {
        invocations: visits,
        seconds: visits * A.previewFunctionSeconds,
        memoryMb: FUNCTION_MEMORY_MB.preview,
        arch: 'arm64',
      },
    },
    sqs: {
      // Planner sends (measured per start) + the poller's receive and delete of each message + idle polls.
      requests: sync.invocations * (planner.perStart.sqsRequests + 2) + ticks * A.sqsIdleReceivesPerMinute,
    },
    dynamodb: {
      readUnits:
        sync.readUnits +
        ticks * planner.tickReadUnits +
        sync.invocations * planner.perStart.readUnits +
        filesPerMonth * A.fileReads +
        headsPerMonth * 0.5,
      writeUnits:
        sync.writeUnits +
        sync.invocations * planner.perStart.writeUnits +
        filesPerMonth * A.fileWrites +
        headsPerMonth,
      storageGb: dynamoStorageGb,
      indexStorageGb: dynamoIndexStorageGb,
      pitr: true,
    },
    s3: {
      putRequests: sync.s3Puts + filesPerMonth * 2,
      getRequests: sync.s3Gets + visits + filesPerMonth,
      storageGb: s3StorageGb,
    },
    logs: { ingestedGb: logsIngestedGb, storedGb: logsIngestedGb * A.logsStoredFraction },
    metrics: { series: A.metricSeries, alarms: A.alarms, dashboards: A.dashboards },
    scheduler: { invocations: ticks + 2 * hourlyRuns + WEEKS_PER_MONTH },
    upstash: { commands: fetches * A.upstashCommandsPerRequest },
    secrets: { secrets: 1, apiCalls: A.coldStartsPerMonth },
    dataTransfer: {
      internetOutGb: (visits * A.fileBytes) / 1e9,
      cloudFrontOutGb: 0,
      cloudFrontRequests: visits,
    },
    // Issue 25 point 4: one web ACL with one rate-based rule, every API request inspected — only when on.
    ...(opts.apiWaf
      ? { waf: { webAcls: 1, rules: 1, requests: sources * A.apiRequestsPerSourcePerWeek * WEEKS_PER_MONTH } }
      : {}),
  };
  const cost = priceUsage(usage);
  // Before issue 18: one message per invocation, a log line per request.
  const before = priceUsage({
    ...usage,
    lambda: { ...usage.lambda, sync: syncFunction(1, 1) },
    logs: {
      ingestedGb: (logBytesPerSync.before * sync.invocations) / 1e9,
      storedGb: ((logBytesPerSync.before * sync.invocations) / 1e9) * A.logsStoredFraction,
    },
  });
  const round = (x: number, d = 2) => Number(x.toFixed(d));
  const services: Record<string, unknown> = {};
  for (const [name, svc] of Object.entries(cost.services)) {
    services[name] = {
      eur: round(svc.eur),
      items: Object.fromEntries(
        Object.entries(svc.items).map(([item, v]) => [
          item,
          { quantity: round(v.quantity, 3), unit: v.unit, eur: round(v.eur, 3) },
        ]),
      ),
    };
  }
  return {
    sources,
    eurPerMonth: round(cost.eurPerMonth),
    eurPerMonthPer1000Sources: round((cost.eurPerMonth / sources) * 1000),
    services,
    week: {
      oparlPerSource: oparlWeek,
      scraperPerSource: scraperWeek,
      syncsPerMinute: round(syncsPerMinute, 1),
      // Runs in flight on average (Little's law): the planner's maxConcurrentSyncs (SCH-5) must exceed
      // it, or the cadence above is not kept.
      concurrentRunsNeeded: round(sync.seconds / (WEEKS_PER_MONTH * 7 * 86_400), 1),
      // SCH-5's default (4) is for a handful of sources: the cadence above needs the stack's
      // `maxConcurrentSyncs` (INGESTOR_MAX_CONCURRENT_SYNCS) at least this high; the bill does not
      // depend on it (the same runs, waiting less), the cadence does.
      maxConcurrentSyncsDefault: DEFAULT_MAX_CONCURRENT_SYNCS,
      maxConcurrentSyncsToSet: Math.ceil((1.5 * sync.seconds) / (WEEKS_PER_MONTH * 7 * 86_400)),
    },
    measured: {
      oparlDemo: oparl,
      scraperFakeRis: scraper,
      planner,
      requestLogLineBytes,
      summaryLineBytes,
      logBytesPerSync: { before: round(logBytesPerSync.before, 0), after: round(logBytesPerSync.after, 0) },
    },
    efficiency: {
      syncRecordsPerInvocation: round(recordsPerInvocation, 1),
      before: {
        what: 'batch size 1 (one source per sync invocation), a log line per request at info',
        eurPerMonth: round(before.eurPerMonth),
        lambdaEur: round(before.services.lambda?.eur ?? 0),
        logsEur: round(before.services.cloudwatchLogs?.eur ?? 0),
      },
      after: {
        what: `batch size ${SYNC_BATCH_SIZE} worked concurrently, request lines at debug`,
        eurPerMonth: round(cost.eurPerMonth),
        lambdaEur: round(cost.services.lambda?.eur ?? 0),
        logsEur: round(cost.services.cloudwatchLogs?.eur ?? 0),
      },
    },
    mirrorIndex: {
      // The inline bound of the code measured (shared/mirror keys.ts): it sets how many items carry `o`.
      inlineItemMaxBytes: INLINE_ITEM_MAX_BYTES,
      overheadBytesPerItem: STORAGE_OVERHEAD_BYTES_PER_ITEM,
      itemsPerSource: round(mirrorItems.perSource, 0),
      avgItemBytes: round(mirrorItems.avgBytes, 0),
      listIndexItemsPerSource: round(mirrorCopies[LIST_INDEX]?.perSource ?? 0, 0),
      avgListIndexBytes: round(mirrorCopies[LIST_INDEX]?.avgBytes ?? 0, 0),
      listCountersPerSource: round(mirrorCounters.perSource, 1),
      avgListCounterBytes: round(mirrorCounters.avgBytes, 0),
      indexes: Object.fromEntries(
        Object.entries(mirrorCopies).map(([index, c]) => [
          index,
          { itemsPerSource: round(c.perSource, 0), avgBytes: round(c.avgBytes, 0) },
        ]),
      ),
      tableGb: round(mirrorTableBytes / 1e9, 3),
      indexGb: round(mirrorIndexBytes / 1e9, 3),
      gb: round((mirrorTableBytes + mirrorIndexBytes) / 1e9, 3),
      // Storage of table and index copies, PITR of the table part (as priceUsage bills them).
      eurPerMonth: round(
        ((mirrorTableBytes * (PRICES.dynamoStorageGbMonth.usd + PRICES.dynamoPitrGbMonth.usd) +
          mirrorIndexBytes * PRICES.dynamoStorageGbMonth.usd) /
          1e9) *
          USD_TO_EUR,
      ),
      measured: { oparlDemo: oparlIndex, scraperFakeRis: scraperIndex },
    },
    mirrorApi: {
      waf: opts.apiWaf === true,
      wafEurPerMonth: round(cost.services.waf?.eur ?? 0),
      // The most a flood can cost per hour through the API function at its bound (reserved concurrency).
      maxInstances: MIRROR_API_MAX_INSTANCES,
      floodCeilingEurPerHour: round(
        apiFloodCeilingEurPerHour({
          instances: MIRROR_API_MAX_INSTANCES,
          memoryMb: FUNCTION_MEMORY_MB.mirrorApi,
          invocationSeconds: A.apiInvocationSeconds,
          arch: 'arm64',
        }),
        3,
      ),
    },
    comparison: { smallVmEurPerMonth: round(PRICES.smallVmMonth.usd * USD_TO_EUR) },
    prices: PRICES_READ_ON,
    usdToEur: USD_TO_EUR,
    assumptions: ASSUMPTIONS,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runCostBench({ log: (line) => console.error(line) });
  console.log(JSON.stringify(result));
}
