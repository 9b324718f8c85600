// Test-only helpers for the sync engine: a plain loopback port over undici (no robots, no pace — the
// fake council has none either; the pace lives in the polite fetcher), a settable clock and a testbed.
import { request } from 'undici';
import {
  type FakeCouncil,
  type FakeCouncilOptions,
  type RecordedRequest,
  startFakeCouncil,
} from '../../demo';
import type { SourceConfig } from '../../shared/config/source';
import type { SyncReport } from '../../shared/engine';
import { syncTablesFromEnv } from '../../shared/engine';
import { MirrorStore } from '../../shared/mirror';
import { type SyncDeps, type SyncRunOptions, syncSource } from '../../shared/oparl/engine';
import {
  OParlFetchError,
  type OParlFetcher,
  type OParlGetOptions,
  type OParlResponse,
} from '../../shared/oparl/ports';
import { putSourceItem } from '../../shared/store/sources';
import { takedownGuards } from '../../shared/takedown';
import type { AwsTestbed } from './aws';
import { restoreStoreSnapshot, type StoreSnapshot, takeStoreSnapshot } from './store-snapshot';

/** Thrown by the test port to simulate an instance killed mid-run (not a typed fetch failure). */
export class SimulatedCrash extends Error {}

export interface LoopbackFetcher extends OParlFetcher {
  /** Requests sent through this port. */
  count: number;
  urls: string[];
  /** Throw `SimulatedCrash` instead of sending request number N+1 (N requests succeed). */
  crashAfter?: number;
  /** Called before each request (advance a clock …). */
  onRequest?: (url: string) => void;
}

/**
 * TEST ADAPTER — not for production: every production request goes through the polite fetcher
 * (`politeFetcherPort`). This one talks straight to the loopback fake council.
 */
export function loopbackFetcher(): LoopbackFetcher {
  const port: LoopbackFetcher = {
    count: 0,
    urls: [],
    async get(url: string, options: OParlGetOptions): Promise<OParlResponse> {
      if (port.crashAfter !== undefined && port.count >= port.crashAfter) {
        throw new SimulatedCrash(`simulated crash before request ${port.count + 1}`);
      }
      port.count += 1;
      port.urls.push(url);
      port.onRequest?.(url);
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': 'mandari-ingestor-test',
      };
      if (options.conditional?.etag) headers['if-none-match'] = options.conditional.etag;
      if (options.conditional?.lastModified) headers['if-modified-since'] = options.conditional.lastModified;
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(url, {
          method: 'GET',
          headers,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
      } catch (err) {
        const code = (err as { code?: string }).code ?? '';
        if (code.includes('TIMEOUT'))
          throw new OParlFetchError('TIMEOUT', url, `timeout at ${url}`, { cause: err });
        throw new OParlFetchError('NETWORK', url, `network error at ${url}`, { cause: err });
      }
      const text = await res.body.text();
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
      const ok =
        (res.statusCode >= 200 && res.statusCode < 300) || (res.statusCode === 304 && options.conditional);
      if (!ok) {
        throw new OParlFetchError('HTTP_STATUS', url, `HTTP ${res.statusCode} from ${url}`, {
          status: res.statusCode,
          bodyText: text.slice(0, 4096),
        });
      }
      return { status: res.statusCode, url, headers: flat, text };
    },
  };
  return port;
}

/** A clock tests set and advance; every request moves it by `perRequestMs`. */
export class TestClock {
  constructor(public ms: number) {}
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * `withCouncil(options, fn)` for a test file: a fake council on a fresh clock at `startMs` (the file's
 * `defaults` under the test's `options`), closed when `fn` is done, whatever it throws.
 */
export function councilOnClock(startMs: number, defaults: FakeCouncilOptions) {
  return async function withCouncil(
    options: FakeCouncilOptions,
    fn: (fake: FakeCouncil, clock: TestClock) => Promise<void>,
  ): Promise<void> {
    const clock = new TestClock(startMs);
    const fake = await startFakeCouncil({ now: clock.now, ...defaults, ...options });
    try {
      await fn(fake, clock);
    } finally {
      await fake.close();
    }
  };
}

export function testSource(
  sourceId: string,
  systemUrl: string,
  extra: Partial<SourceConfig> = {},
): SourceConfig {
  return {
    sourceId,
    systemUrl,
    host: new URL(systemUrl).hostname,
    kind: 'oparl',
    active: true,
    requestIntervalSeconds: 1,
    fileFetching: true,
    cadenceMinutes: {},
    fullSyncMinDays: 0,
    fullSyncSliced: false,
    photoUrlPatterns: {},
    ...extra,
  };
}

let counter = 0;
export function uniqueSourceId(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export interface Harness {
  deps: SyncDeps;
  fetcher: LoopbackFetcher;
  clock: TestClock;
  source: SourceConfig;
  mirror: MirrorStore;
  sync(kind: SyncRunOptions['kind'], extra?: Partial<SyncRunOptions>): Promise<SyncReport>;
}

let runs = 0;
export function harness(
  bed: AwsTestbed,
  systemUrl: string,
  clock: TestClock,
  prefix = 'src',
  extra: Partial<SourceConfig> = {},
): Harness {
  const fetcher = loopbackFetcher();
  const source = testSource(uniqueSourceId(prefix), systemUrl, extra);
  const deps: SyncDeps = {
    fetcher,
    clients: bed.clients,
    tables: syncTablesFromEnv(bed.env),
    // Over the run's clients as they are when it starts (a test may give the sync clients of its own,
    // test/takedown/sync-race.test.ts), as the composition root builds the guard on the engine's clients.
    takedowns: (sourceId, log) =>
      takedownGuards({ clients: deps.clients, bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE })(
        sourceId,
        log,
      ),
    now: clock.now,
    sleep: async (ms) => clock.advance(ms),
  };
  const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  return {
    deps,
    fetcher,
    clock,
    source,
    mirror,
    sync: (kind, extraRun = {}) => {
      runs += 1;
      return syncSource(deps, source, { kind, runId: `run-${runs}`, ...extraRun });
    },
  };
}

/** Every live mirrored object of a source, as `type id → object` (tombstones excluded, OPT-2). */
export async function liveMirror(h: Harness, types: readonly string[]): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const type of types) {
    for await (const entry of h.mirror.listLive(h.source.sourceId, type)) {
      const record = await h.mirror.readLive(h.source.sourceId, type, entry.id);
      if (record) out.set(`${type} ${entry.id}`, record.object);
    }
  }
  return out;
}

/**
 * The demo council with two bodies (Köln, Weißenbrunn) on `clock`; on `port` when given (a council
 * started again where a stored mirror expects it: its URLs name the port).
 */
export function twoBodyCouncil(
  clock: TestClock,
  shape: Pick<FakeCouncilOptions, 'objectsPerList' | 'pageSize'>,
  port?: number,
): Promise<FakeCouncil> {
  return startFakeCouncil({
    now: clock.now,
    bodies: [
      { name: 'Stadt Köln', shortName: 'Köln' },
      { name: 'Gemeinde Weißenbrunn', shortName: 'Weißenbrunn' },
    ],
    ...shape,
    ...(port === undefined ? {} : { port }),
  });
}

/**
 * The demo council with two bodies (Köln, Weißenbrunn) on a settable clock, stored as an active source
 * and fully synced by the real engine: the starting point of the takedown and mirror-API tests.
 */
export async function syncedTwoBodyCouncil(
  bed: AwsTestbed,
  prefix: string,
  t0: number,
  shape: Pick<FakeCouncilOptions, 'objectsPerList' | 'pageSize'>,
): Promise<{ council: FakeCouncil; h: Harness; clock: TestClock }> {
  const clock = new TestClock(t0);
  const council = await twoBodyCouncil(clock, shape);
  const h = harness(bed, council.systemUrl, clock, prefix);
  await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
    sourceId: h.source.sourceId,
    systemUrl: council.systemUrl,
    active: true,
  });
  const report = await h.sync('full');
  if (!report.complete) throw new Error(`seed sync incomplete: ${JSON.stringify(report.failures)}`);
  return { council, h, clock };
}

type CouncilShape = Pick<FakeCouncilOptions, 'objectsPerList' | 'pageSize'>;

/**
 * A synced two-body council as a later test can have it again without a sync: the peers' snapshot
 * (taken when the seed is complete), the council's port, shape and request log, the clock, the
 * source, what the fetcher counted.
 */
export interface SyncedCouncilTemplate {
  snapshot: StoreSnapshot;
  shape: CouncilShape;
  port: number;
  clockMs: number;
  source: SourceConfig;
  fetched: { count: number; urls: string[] };
  requests: RecordedRequest[];
}

export async function syncedCouncilTemplate(
  bed: AwsTestbed,
  seeded: { council: FakeCouncil; h: Harness },
  shape: CouncilShape,
): Promise<SyncedCouncilTemplate> {
  return {
    snapshot: await takeStoreSnapshot(bed),
    shape,
    port: seeded.council.port,
    clockMs: seeded.h.clock.ms,
    source: structuredClone(seeded.h.source),
    fetched: { count: seeded.h.fetcher.count, urls: [...seeded.h.fetcher.urls] },
    requests: seeded.council.requests.map((r) => ({ ...r })),
  };
}

/**
 * The template's synced council again: the peers put back, the council started again on its port (the
 * stored ids and URLs name it) at its clock with its request log, a harness of its source whose
 * fetcher counted what the seed's did. Undefined when the port is taken meanwhile (sync afresh then).
 */
export async function restoreSyncedCouncil(
  bed: AwsTestbed,
  template: SyncedCouncilTemplate,
): Promise<{ council: FakeCouncil; h: Harness; clock: TestClock } | undefined> {
  const clock = new TestClock(template.clockMs);
  let council: FakeCouncil;
  try {
    council = await twoBodyCouncil(clock, template.shape, template.port);
  } catch (error) {
    if ((error as { code?: string }).code === 'EADDRINUSE') return undefined;
    throw error;
  }
  await restoreStoreSnapshot(bed, template.snapshot);
  council.requests.push(...template.requests.map((r) => ({ ...r })));
  const h = harness(bed, council.systemUrl, clock, 'seed', structuredClone(template.source));
  h.fetcher.count = template.fetched.count;
  h.fetcher.urls.push(...template.fetched.urls);
  return { council, h, clock };
}
