/**
 * Issue 28: how the store keeps a source's schedule state (shared/schedule `SourceScheduleState`) in the
 * STATE item. Every lease, claim and release rewrites that item, and DynamoDB bills each started KB of the
 * larger of its before and after images: the item must stay under 1 KB while leased. The schedule's own
 * field names were ≈ 300 of its bytes, so the store writes them short (the table below is the one key to
 * them) and leaves out what it can rebuild:
 *
 * - `schemaVersion` (always 1) is not written;
 * - the running sync's `kind` and `leaseUntil` are the lease's own `leaseKind` / `leaseUntil` attributes
 *   (SCH-5: the lease is the truth) and are filled back from them on reading;
 * - the learnt runs (RATE-9) are one short string each (`i:11:0.4` = kind, requests, seconds).
 *
 * On-call never reads the raw item: `status` and `explain` read it through the store, which hands the
 * schedule out in its own shape. Items written before are read as they are (long names; one release of
 * fallback): a name the table does not know is kept as it is, so a field added to the schedule later is
 * stored under its own name until it is given a short one here.
 */

/** Stored name of each schedule field (all distinct, none equal to a long name). */
const SHORT_NAMES: Record<string, string> = {
  lastSyncStartedAt: 'ls',
  lastSyncEndedAt: 'le',
  lastSyncKind: 'lk',
  lastSyncPeriod: 'lp',
  lastSyncChanged: 'lc',
  quietStreak: 'qs',
  intervalMinutes: 'im',
  failureStreak: 'fs',
  lastSuccessAt: 'lo',
  pause: 'pz',
  fullSyncInProgress: 'fp',
  fullSyncLastStartedAt: 'fl',
  fullSyncLastWindowId: 'fw',
  fullSyncLastCompleteStartedAt: 'fcs',
  fullSyncLastCompletedAt: 'fce',
  fullSyncLastCompleteWindowId: 'fcw',
  incrementalOnlyUntil: 'io',
  sessionDays: 'sd',
  manualRequest: 'mr',
  running: 'ru',
  recentRuns: 'rr',
};
const LONG_NAMES = Object.fromEntries(Object.entries(SHORT_NAMES).map(([long, short]) => [short, long]));

/** The stored name of the schedule's `manualRequest` (requestManualSync sets it inside the map). */
export const MANUAL_REQUEST_STORED = SHORT_NAMES.manualRequest as string;

/** The running sync's fields as stored (its kind and lease end are the lease's own attributes). */
const RUNNING_SHORT: Record<string, string> = {
  trigger: 't',
  startedAt: 's',
  windowId: 'w',
  deadline: 'd',
};
const RUNNING_LONG = Object.fromEntries(Object.entries(RUNNING_SHORT).map(([long, short]) => [short, long]));
/** Kept in the lease attributes, not in the stored `running`. */
const RUNNING_FROM_LEASE = new Set(['kind', 'leaseUntil']);

const RUN_KIND_CODES: Record<string, string> = { incremental: 'i', full: 'f', sliced: 's' };
const RUN_KIND_OF_CODE = Object.fromEntries(Object.entries(RUN_KIND_CODES).map(([k, c]) => [c, k]));

interface RecentRunShape {
  kind: string;
  requests: number;
  seconds: number;
}

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function storedRecentRuns(runs: unknown): unknown {
  if (!Array.isArray(runs)) return runs;
  return runs.map((run: RecentRunShape | string) =>
    typeof run === 'string' ? run : `${RUN_KIND_CODES[run.kind] ?? run.kind}:${run.requests}:${run.seconds}`,
  );
}

function recentRunsFromStore(runs: unknown): unknown {
  if (!Array.isArray(runs)) return runs;
  return runs.map((run: RecentRunShape | string) => {
    if (typeof run !== 'string') return run;
    const [kind = '', requests, seconds] = run.split(':');
    return { kind: RUN_KIND_OF_CODE[kind] ?? kind, requests: Number(requests), seconds: Number(seconds) };
  });
}

function storedRunning(running: unknown): unknown {
  if (!isFields(running)) return running;
  const out: Fields = {};
  for (const [name, value] of Object.entries(running)) {
    if (RUNNING_FROM_LEASE.has(name) || value === undefined) continue;
    out[RUNNING_SHORT[name] ?? name] = value;
  }
  return out;
}

/** The schedule as the STATE item stores it. */
export function storedSchedule(schedule: unknown): unknown {
  if (!isFields(schedule)) return schedule;
  const out: Fields = {};
  for (const [name, value] of Object.entries(schedule)) {
    if (name === 'schemaVersion' || value === undefined) continue;
    const stored =
      name === 'recentRuns' ? storedRecentRuns(value) : name === 'running' ? storedRunning(value) : value;
    out[SHORT_NAMES[name] ?? name] = stored;
  }
  return out;
}

/** The lease attributes of the item the schedule was read with (absent in the `byDueAt` copy). */
export interface LeaseView {
  leaseKind?: unknown;
  leaseUntil?: unknown;
}

function runningFromStore(running: unknown, lease: LeaseView): unknown {
  if (!isFields(running)) return running;
  const out: Fields = {};
  for (const [name, value] of Object.entries(running)) out[RUNNING_LONG[name] ?? name] = value;
  if (lease.leaseKind !== undefined) out.kind = lease.leaseKind;
  if (lease.leaseUntil !== undefined) out.leaseUntil = lease.leaseUntil;
  return out;
}

/**
 * The schedule in its own shape again, from either stored form. A stored `running` without a lease
 * beside it (the `byDueAt` copy holds none, and a released item keeps none) is left out: no run holds
 * the source (SCH-5), and the planner rebuilds a lease it reads apart (`scheduleStateOf`).
 */
export function scheduleFromStore(schedule: unknown, lease: LeaseView = {}): unknown {
  if (!isFields(schedule)) return schedule;
  const out: Fields = { schemaVersion: 1 };
  // Long names first: a short one written into an old item later (requestManualSync) wins.
  const entries = Object.entries(schedule).sort(
    ([a], [b]) => Number(a in LONG_NAMES) - Number(b in LONG_NAMES),
  );
  for (const [stored, value] of entries) {
    const name = LONG_NAMES[stored] ?? stored;
    out[name] =
      name === 'recentRuns'
        ? recentRunsFromStore(value)
        : name === 'running'
          ? runningFromStore(value, lease)
          : value;
  }
  const running = out.running;
  if (isFields(running) && (running.kind === undefined || running.leaseUntil === undefined))
    delete out.running;
  return out;
}
