import type { FakeCouncilOptions } from '../../demo';
import type { IngestorEnv } from '../../shared/config';
import type { WireRequest } from './council-process';
import type { ChaosCouncil, CouncilHost } from './councils';
import {
  compareMirrors,
  type MirrorSnapshot,
  maxInFlight,
  minGapMs,
  snapshotMirror,
  spacingViolations,
} from './observe';
import { CHAOS_T0, type ChaosStack, type Deployment, type Instance } from './stack';

/** The headline figures (issue 13), per scenario and summed over the campaign. */
export interface ChaosFigures {
  forbiddenRequests: number;
  spacingViolations: number;
  maxInFlightPerHost: number;
  lostObjects: number;
  duplicatedObjects: number;
  revivedTakedowns: number;
  /** Committed takedowns and purges that never reached the change feed (issue 16). */
  lostFeedEvents: number;
  sourcesPausedForOurFaults: number;
}

export interface ScenarioResult extends ChaosFigures {
  name: string;
  /** SPEC rule IDs the scenario holds the code to. */
  rules: string[];
  /** The defect of issue 13 it reproduces, when it is one of those. */
  defect?: number;
  passed: boolean;
  /** Further checks that failed (deadlines, run outcomes …), in words. */
  violations: string[];
  notes: Record<string, unknown>;
  seconds: number;
}

export interface Scenario {
  name: string;
  rules: string[];
  defect?: number;
  /** What must hold, in one sentence (docs/reliability.md). */
  holds: string;
  /** Needs the machine to itself (kills a shared peer …): run after the concurrent ones. */
  alone?: boolean;
  run(ctx: ScenarioContext): Promise<void>;
}

/** The council every scenario starts from unless it says otherwise: OParl 1.0, one body, 2 pages per list. */
export const STANDARD_COUNCIL: FakeCouncilOptions = {
  oparlVersion: '1.0',
  bodies: 1,
  objectsPerList: 3,
  pageSize: 2,
};

interface Watched {
  council: ChaosCouncil;
  /** Wall-clock life of the server: its port may serve another council before or after. */
  fromEpochMs: number;
  untilEpochMs: number;
  minIntervalMs: number;
  forbidden: ((r: WireRequest) => boolean)[];
}

/** Clean runs of a council configuration, shared by the scenarios of one campaign. */
export type CleanRuns = (options: FakeCouncilOptions) => Promise<MirrorSnapshot>;

export class ScenarioContext {
  readonly figures: ChaosFigures = {
    forbiddenRequests: 0,
    spacingViolations: 0,
    maxInFlightPerHost: 0,
    lostObjects: 0,
    duplicatedObjects: 0,
    revivedTakedowns: 0,
    lostFeedEvents: 0,
    sourcesPausedForOurFaults: 0,
  };
  readonly violations: string[] = [];
  readonly notes: Record<string, unknown> = {};
  private readonly watched: Watched[] = [];
  private readonly closers: (() => Promise<unknown>)[] = [];
  private councils = 0;
  private deployments = 0;

  constructor(
    readonly name: string,
    readonly stack: ChaosStack,
    readonly councilHost: CouncilHost,
    readonly clean: CleanRuns,
    private seed: number,
  ) {}

  /** A deterministic random number in [0, 1) for this scenario (pages to crash at …). */
  random(): number {
    this.seed = (this.seed + 0x6d2b79f5) >>> 0;
    let t = this.seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  async deploy(overrides: Partial<IngestorEnv> = {}): Promise<Deployment> {
    this.deployments += 1;
    return this.stack.deploy(`${this.name.slice(0, 36)}-${this.deployments}`, overrides);
  }

  /** A fake council on its own `.test` host, watched for spacing, in-flight and forbidden requests. */
  async council(options: FakeCouncilOptions = {}, minIntervalMs = 1_000): Promise<ChaosCouncil> {
    this.councils += 1;
    const council = await this.councilHost.start({
      ...STANDARD_COUNCIL,
      ...options,
      hostname: `${this.name}-${this.councils}.test`,
    });
    const watched: Watched = {
      council,
      fromEpochMs: Date.now() - 1,
      untilEpochMs: Number.POSITIVE_INFINITY,
      minIntervalMs,
      forbidden: [],
    };
    this.watched.push(watched);
    this.closers.push(async () => {
      await council.close();
      watched.untilEpochMs = Date.now() + 1;
    });
    return council;
  }

  /** Requests matching `predicate` count as forbidden (disallowed, or after a takedown/opt-out). */
  forbid(council: ChaosCouncil, predicate: (r: WireRequest) => boolean): void {
    this.watch(council).forbidden.push(predicate);
  }

  /** The pace the server is owed (RATE-2 interval, Crawl-delay …), when stricter than 1 s. */
  owe(council: ChaosCouncil, minIntervalMs: number): void {
    this.watch(council).minIntervalMs = minIntervalMs;
  }

  private watch(council: ChaosCouncil): Watched {
    const w = this.watched.find((x) => x.council === council);
    if (!w) throw new Error('not a council of this scenario');
    return w;
  }

  onClose(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  check(ok: boolean, violation: string): boolean {
    if (!ok) this.violations.push(violation);
    return ok;
  }

  /** Mirror vs a clean run of the same council configuration. */
  async compare(
    d: Deployment,
    sourceId: string,
    council: ChaosCouncil,
    options: FakeCouncilOptions = {},
    expectedAbsent?: (name: string) => boolean,
  ): Promise<void> {
    const [clean, got] = await Promise.all([
      this.clean({ ...STANDARD_COUNCIL, ...options }),
      snapshotMirror(d, sourceId, council.url),
    ]);
    const c = compareMirrors(clean, got, expectedAbsent);
    this.figures.lostObjects += c.lostObjects;
    this.figures.duplicatedObjects += c.duplicatedObjects;
    if (c.lost.length > 0) this.notes.lost = c.lost;
    if (c.extra.length > 0) this.notes.extra = c.extra;
    this.notes.mirrored = got.live.size;
  }

  /** ERR-4/ERR-5 must never hold our own store's faults against a source. */
  async expectNotBlamed(d: Deployment, sourceId: string): Promise<void> {
    const state = await d.state(sourceId);
    const schedule = state?.schedule;
    const blamed = (schedule?.failureStreak ?? 0) > 0 || schedule?.pause !== undefined;
    if (blamed) {
      this.figures.sourcesPausedForOurFaults += 1;
      this.notes.schedule = { failureStreak: schedule?.failureStreak, pause: schedule?.pause };
    }
  }

  /** In-flight and forbidden requests of every watched server; called by the runner at the scenario's end. */
  async measureServers(): Promise<void> {
    for (const w of this.watched) {
      const lagMs = await w.council.settle();
      this.notes.serverLagMaxMs = Math.max((this.notes.serverLagMaxMs as number | undefined) ?? 0, lagMs);
      const reqs = w.council.requests;
      this.figures.maxInFlightPerHost = Math.max(this.figures.maxInFlightPerHost, maxInFlight(reqs));
      const forbidden = reqs.filter((r) => w.forbidden.some((p) => p(r)));
      this.figures.forbiddenRequests += forbidden.length;
      if (forbidden.length > 0) this.notes.forbidden = forbidden.slice(0, 5).map((r) => r.path);
      this.notes.requests = ((this.notes.requests as number | undefined) ?? 0) + reqs.length;
      if (process.env.CHAOS_PATHS) this.notes.paths = reqs.map((r) => `${r.status} ${r.path}`);
    }
  }

  /**
   * Spacing at every watched server (RATE-1/RATE-2, ROB-3): on the kernel's arrival stamps of the
   * campaign's packet capture when there is one (port → GET arrivals), else on the servers' own stamps.
   */
  measureSpacing(wire: Map<number, { at: number; path: string }[]> | undefined): void {
    for (const w of this.watched) {
      const arrivals = wire
        ? (wire.get(w.council.port) ?? []).filter((p) => p.at >= w.fromEpochMs && p.at <= w.untilEpochMs)
        : w.council.requests;
      const spacing = spacingViolations(arrivals, w.minIntervalMs);
      this.figures.spacingViolations += spacing.count;
      if (spacing.count > 0) this.notes.closeGaps = spacing.gaps;
      // Both clocks' closest pair side by side: the server's own stamps are late by its event-loop lag,
      // which shortens a gap whose first stamp was late (a 951 ms "gap" once, with 89 ms of lag).
      const closest = {
        ...(wire ? { kernel: Math.round(minGapMs(arrivals)) } : {}),
        server: Math.round(minGapMs(w.council.requests)),
      };
      const noted = this.notes.minGapMs as { kernel?: number; server: number } | undefined;
      this.notes.minGapMs = noted
        ? {
            ...(closest.kernel !== undefined
              ? { kernel: Math.min(noted.kernel ?? Infinity, closest.kernel) }
              : {}),
            server: Math.min(noted.server, closest.server),
          }
        : closest;
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.closers.map((c) => c()));
  }
}

/**
 * Planner tick → drain, repeated (the clock moves one step between ticks) until the source's last run
 * was complete and ok, or `maxTicks` ticks have passed; then, when asked, once more in the next
 * night's full-sync window (FULL-1), which is when a list missed by a full sync is read whole again.
 */
export async function syncUntilComplete(
  d: Deployment,
  instance: Instance,
  sourceId: string,
  opts: { maxTicks?: number; stepMs?: number; nextFullWindow?: boolean } = {},
): Promise<{ ticks: number; complete: boolean; nextFullWindow: boolean }> {
  const complete = async () => {
    const last = (await d.state(sourceId))?.lastRun as { ok?: boolean; complete?: boolean } | undefined;
    return last?.ok === true && last.complete === true;
  };
  const max = opts.maxTicks ?? 3;
  for (let tick = 1; tick <= max; tick += 1) {
    await d.tick();
    await d.drain(instance);
    if (await complete()) return { ticks: tick, complete: true, nextFullWindow: false };
    if (tick < max) d.clock.advance(opts.stepMs ?? 31 * 60_000);
  }
  if (!opts.nextFullWindow) return { ticks: max, complete: false, nextFullWindow: false };
  d.clock.ms = CHAOS_T0 + DAY_MS * Math.ceil((d.clock.ms - CHAOS_T0 + 1) / DAY_MS);
  await d.tick();
  await d.drain(instance);
  return { ticks: max + 1, complete: await complete(), nextFullWindow: true };
}

const DAY_MS = 24 * 60 * 60_000;
