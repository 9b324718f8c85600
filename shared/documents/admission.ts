import {
  type HostConditions,
  type HostModel,
  hostConditionsOf,
  hostModelOf,
  hostModelsOf,
  hostSourceInputOf,
  type OtherFetchAdmission,
  otherFetchAdmission,
} from '../hosts';
import type { ScheduleSettings } from '../schedule';
import type { HostLedger } from '../slots';
import { hostKey } from '../util';
import type { SourceContext } from './context';

/**
 * Item 5 of issue 27 (RATE-9 "one host, one budget", RATE-8, RATE-1): the document passes — files,
 * deletion check, photos — are admitted per host against the host budget the planner plans syncs with,
 * instead of blind. They already take the same per-host slots (so they share the pace, never add to it);
 * admission decides whether a pass starts on a host at all: not while it is paused, not when the other
 * fetches already take their share, and on a host whose sync demand fills the pace only within the
 * other fetches' minimum share (sync runs first, the documents never starve). A host refused is skipped
 * this time — its items stay due for the next run — and the pass's report says why.
 *
 * Their requests are counted per host and recorded in the host ledger, where the planner (and the next
 * pass) read the other fetches' share.
 */
export interface HostBudgetDeps {
  ledger: HostLedger;
  /** The planner's schedule settings: the syncs' demand per host is the planner's. */
  settings: ScheduleSettings;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** Requests counted but not yet recorded: recorded once this many are pending (and at each pass's end). */
const RECORD_EVERY_REQUESTS = 100;

/** One process's meter and admission (the documents runtime holds one for all its passes). */
export class HostBudget {
  private pending = new Map<string, number>();
  private pendingCount = 0;
  private recording: Promise<void> = Promise.resolve();

  constructor(private readonly deps: HostBudgetDeps) {}

  /** A request an other fetch sent to `host` (the fetcher's request event). */
  count(host: string): void {
    const key = hostKey(host);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    this.pendingCount += 1;
    if (this.pendingCount >= RECORD_EVERY_REQUESTS) void this.record();
  }

  /** Records the pending counts in the ledger (one store call); a failing store only loses the counts. */
  record(): Promise<void> {
    const counts = this.pending;
    this.pending = new Map();
    this.pendingCount = 0;
    if (counts.size === 0) return this.recording;
    this.recording = this.recording.then(() =>
      this.deps.ledger.recordOtherFetches(counts).catch((error: unknown) => {
        this.deps.log?.('other fetches not recorded', {
          hosts: counts.size,
          code: (error as { code?: string }).code ?? 'ERROR',
        });
      }),
    );
    return this.recording;
  }

  /**
   * A pass's admission at its start: the syncs' demand per host (the sources' cadence and learnt
   * requests, as the planner computes it), the ledger's pauses and other fetches' use.
   */
  async admission(contexts: readonly SourceContext[], now: Date): Promise<PassAdmission> {
    let conditions = new Map<string, HostConditions>();
    let unavailable: string | undefined;
    try {
      conditions = hostConditionsOf(await this.deps.ledger.read());
    } catch (error) {
      // Blind as before, rather than no documents at all: the slots still keep every pace and pause.
      unavailable = (error as { code?: string }).code ?? 'ERROR';
      this.deps.log?.('host ledger unreadable: passes admitted without host budget', { code: unavailable });
    }
    const nowIso = now.toISOString();
    const inputs = contexts
      .filter((c) => c.source.active)
      .map((c) => hostSourceInputOf(c.source, c.hostState, nowIso, this.deps.settings));
    const models = hostModelsOf(inputs, conditions, now.getTime());
    return new PassAdmission({
      models,
      conditions,
      nowMs: now.getTime(),
      enabled: unavailable === undefined,
      log: this.deps.log,
    });
  }
}

/** A host a pass skipped this time, and why (RATE-9 / RATE-8). */
export interface BusyHost {
  host: string;
  reason: string;
  ruleIds: string[];
}

/** What a pass's admission decides from: the host models and conditions read once, at `nowMs`. */
export interface PassAdmissionInput {
  models: ReadonlyMap<string, HostModel>;
  conditions: ReadonlyMap<string, HostConditions>;
  nowMs: number;
  /** False when the host budget is unavailable: every host is admitted, as before. */
  enabled: boolean;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** Per host, once per pass: may the pass fetch there (`allows`), and which hosts it skipped (`busy`). */
export class PassAdmission {
  private readonly decided = new Map<string, OtherFetchAdmission>();
  readonly busy: BusyHost[] = [];
  private readonly models: ReadonlyMap<string, HostModel>;
  private readonly conditions: ReadonlyMap<string, HostConditions>;
  private readonly nowMs: number;
  private readonly enabled: boolean;
  private readonly log?: (event: string, fields: Record<string, unknown>) => void;

  constructor(input: PassAdmissionInput) {
    this.models = input.models;
    this.conditions = input.conditions;
    this.nowMs = input.nowMs;
    this.enabled = input.enabled;
    this.log = input.log;
  }

  /** Whether the pass may start fetching on `host` (a URL or host name); decided once per pass. */
  allows(host: string): boolean {
    if (!this.enabled || host === '') return true;
    const key = hostKey(host);
    let decision = this.decided.get(key);
    if (decision === undefined) {
      const conditions = this.conditions.get(key) ?? {};
      // A host no council source names (a file server, a CDN): no sync demand, its own floors only.
      const model = this.models.get(key) ?? hostModelOf(key, [], conditions, this.nowMs);
      decision = otherFetchAdmission(model, conditions.otherRequestsPerSecond ?? 0);
      this.decided.set(key, decision);
      if (!decision.allowed) {
        this.busy.push({ host: key, reason: decision.reason, ruleIds: decision.ruleIds });
        this.log?.('host skipped by this pass', { host: key, reason: decision.reason });
      }
    }
    return decision.allowed;
  }
}

/** Admission for a pass without a host budget (tests on their own slots): every host, as before. */
export const ADMIT_ALL = new PassAdmission({
  models: new Map(),
  conditions: new Map(),
  nowMs: 0,
  enabled: false,
});

/** The pass's admission: from the runtime's host budget, or every host when it has none. */
export async function passAdmission(
  budget: HostBudget | undefined,
  contexts: readonly SourceContext[],
  now: Date,
): Promise<PassAdmission> {
  return budget === undefined ? ADMIT_ALL : budget.admission(contexts, now);
}
