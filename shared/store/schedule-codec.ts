import { instantFromStore, localDatesFromStore, storedInstant, storedLocalDates } from './instant-codec';

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
 * - the learnt runs (RATE-9) are one short string each (`i:11:0.4` = kind, requests, seconds);
 * - instants are numbers (`instant-codec.ts`: ≈ 6 B instead of 24–25) and the session days one string of
 *   three base-36 characters a day, wherever that reads back as the very same text — anything else
 *   (an instant in another form, a date that is no date) is kept as it was written;
 * - the last run's kind and period and the running sync's trigger are one letter;
 * - beside the schedule, the planner's last decision keeps its instant as a number, the last valid
 *   pace its two fields under one-letter names, and the last run inline its fields under one-letter
 *   names with numbers for its instants (`storedStateAttribute`, `stateItemFromStore`).
 * The lease's own attributes (`leaseUntil`, and `dueAt` beside it) stay ISO strings: they are index keys
 * and must sort as text (the `byDueAt` design is shared/store tables.ts').
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

/** Schedule fields holding an instant (ISO text in the schedule's shape). */
const INSTANT_FIELDS: ReadonlySet<string> = new Set([
  'lastSyncStartedAt',
  'lastSyncEndedAt',
  'lastSuccessAt',
  'fullSyncLastStartedAt',
  'fullSyncLastWindowId',
  'fullSyncLastCompleteStartedAt',
  'fullSyncLastCompletedAt',
  'fullSyncLastCompleteWindowId',
  'incrementalOnlyUntil',
]);
/** Instants inside the nested maps, by the map's (long) name. */
const NESTED_INSTANTS: Readonly<Record<string, ReadonlySet<string>>> = {
  running: new Set(['startedAt', 'windowId', 'deadline']),
  pause: new Set(['until']),
  manualRequest: new Set(['requestedAt']),
};
/** One-letter codes of closed word sets (a word not listed is stored as it is). */
const WORD_CODES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  lastSyncKind: RUN_KIND_CODES,
  lastSyncPeriod: { weekdayDay: 'd', weekdayNight: 'n', weekend: 'w' },
};
const RUNNING_TRIGGER_CODES: Record<string, string> = { schedule: 's', manual: 'm' };
const invert = (codes: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(codes).map(([word, code]) => [code, word]));
const WORD_OF_CODE = Object.fromEntries(Object.entries(WORD_CODES).map(([f, c]) => [f, invert(c)]));
const RUNNING_TRIGGER_OF_CODE = invert(RUNNING_TRIGGER_CODES);

/** A word as stored: its code when it has one and the code is not itself a word of the set. */
function storedWord(value: unknown, codes: Readonly<Record<string, string>> | undefined): unknown {
  return typeof value === 'string' && codes?.[value] !== undefined ? codes[value] : value;
}

function wordFromStore(value: unknown, words: Readonly<Record<string, string>> | undefined): unknown {
  return typeof value === 'string' && words?.[value] !== undefined ? words[value] : value;
}

/** A nested map's instants stored as numbers (its other fields as they are). */
function storedInstantsIn(map: unknown, fields: ReadonlySet<string> | undefined): unknown {
  if (!isFields(map) || fields === undefined) return map;
  const out: Fields = {};
  for (const [name, value] of Object.entries(map))
    out[name] = fields.has(name) ? storedInstant(value) : value;
  return out;
}

function instantsFromStoreIn(map: unknown, fields: ReadonlySet<string> | undefined): unknown {
  if (!isFields(map) || fields === undefined) return map;
  const out: Fields = {};
  for (const [name, value] of Object.entries(map))
    out[name] = fields.has(name) ? instantFromStore(value) : value;
  return out;
}

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
  const instants = NESTED_INSTANTS.running;
  const out: Fields = {};
  for (const [name, value] of Object.entries(running)) {
    if (RUNNING_FROM_LEASE.has(name) || value === undefined) continue;
    const stored =
      name === 'trigger'
        ? storedWord(value, RUNNING_TRIGGER_CODES)
        : instants?.has(name)
          ? storedInstant(value)
          : value;
    out[RUNNING_SHORT[name] ?? name] = stored;
  }
  return out;
}

/** One schedule field's value as stored (by its long name). */
function storedField(name: string, value: unknown): unknown {
  if (name === 'recentRuns') return storedRecentRuns(value);
  if (name === 'running') return storedRunning(value);
  if (name === 'sessionDays') return storedLocalDates(value);
  if (INSTANT_FIELDS.has(name)) return storedInstant(value);
  if (name in WORD_CODES) return storedWord(value, WORD_CODES[name]);
  return storedInstantsIn(value, NESTED_INSTANTS[name]);
}

/** The schedule as the STATE item stores it. */
export function storedSchedule(schedule: unknown): unknown {
  if (!isFields(schedule)) return schedule;
  const out: Fields = {};
  for (const [name, value] of Object.entries(schedule)) {
    if (name === 'schemaVersion' || value === undefined) continue;
    out[SHORT_NAMES[name] ?? name] = storedField(name, value);
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
  for (const [stored, value] of Object.entries(running)) {
    const name = RUNNING_LONG[stored] ?? stored;
    out[name] =
      name === 'trigger'
        ? wordFromStore(value, RUNNING_TRIGGER_OF_CODE)
        : NESTED_INSTANTS.running?.has(name)
          ? instantFromStore(value)
          : value;
  }
  if (lease.leaseKind !== undefined) out.kind = lease.leaseKind;
  if (lease.leaseUntil !== undefined) out.leaseUntil = lease.leaseUntil;
  return out;
}

/** One schedule field's value in the schedule's shape (by its long name), from either stored form. */
function fieldFromStore(name: string, value: unknown): unknown {
  if (name === 'recentRuns') return recentRunsFromStore(value);
  if (name === 'sessionDays') return localDatesFromStore(value);
  if (INSTANT_FIELDS.has(name)) return instantFromStore(value);
  if (name in WORD_OF_CODE) return wordFromStore(value, WORD_OF_CODE[name]);
  return instantsFromStoreIn(value, NESTED_INSTANTS[name]);
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
    out[name] = name === 'running' ? runningFromStore(value, lease) : fieldFromStore(name, value);
  }
  const running = out.running;
  if (isFields(running) && (running.kind === undefined || running.leaseUntil === undefined))
    delete out.running;
  return out;
}

/** Stored names of the last valid pace's fields (RATE-2: written by the planner on every decision). */
const PACE_SHORT: Record<string, string> = { host: 'h', requestIntervalSeconds: 'i' };
const PACE_LONG = invert(PACE_SHORT);

function renamed(map: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!isFields(map)) return map;
  const out: Fields = {};
  for (const [name, value] of Object.entries(map)) out[names[name] ?? name] = value;
  return out;
}

/**
 * One attribute of the STATE item as stored: the schedule (above), the planner's last decision with its
 * instant as a number, the last valid pace under short names. Others as they are.
 */
export function storedStateAttribute(name: string, value: unknown): unknown {
  if (name === 'schedule') return storedSchedule(value);
  if (name === 'lastDecision') return storedInstantsIn(value, DECISION_INSTANTS);
  if (name === 'lastValidPace') return renamed(value, PACE_SHORT);
  if (name === 'lastRun') return storedLastRun(value);
  return value;
}

const DECISION_INSTANTS: ReadonlySet<string> = new Set(['decidedAt']);

/**
 * Issue 28: the last run inline in STATE (shared/sync run.ts `lastRunOf`) under one-letter names, its
 * instants as numbers, its kind and trigger as one letter and its object counts under one-letter names:
 * 250 → 108 bytes for an unchanged scheduled run, so an item with more session days, a longer decision
 * or a full sync's history still keeps it inline (the release's one write instead of it and a `LASTRUN`
 * put). A name not listed is kept as it is; an item written before (long names) reads as it was.
 */
const LAST_RUN_SHORT: Record<string, string> = {
  runId: 'r',
  kind: 'k',
  trigger: 't',
  startedAt: 's',
  endedAt: 'e',
  ok: 'o',
  changed: 'c',
  complete: 'f',
  requests: 'q',
  objects: 'b',
  failures: 'x',
  failureDetails: 'd',
  continuations: 'n',
};
const LAST_RUN_LONG = invert(LAST_RUN_SHORT);
const LAST_RUN_INSTANTS: ReadonlySet<string> = new Set(['startedAt', 'endedAt']);
const OBJECT_COUNTS_SHORT: Record<string, string> = { new: 'n', modified: 'm', deleted: 'd' };
const OBJECT_COUNTS_LONG = invert(OBJECT_COUNTS_SHORT);
const RUN_KIND_WORDS = invert(RUN_KIND_CODES);

function storedLastRun(run: unknown): unknown {
  if (!isFields(run)) return run;
  const out: Fields = {};
  for (const [name, value] of Object.entries(run)) {
    if (value === undefined) continue;
    out[LAST_RUN_SHORT[name] ?? name] =
      name === 'kind'
        ? storedWord(value, RUN_KIND_CODES)
        : name === 'trigger'
          ? storedWord(value, RUNNING_TRIGGER_CODES)
          : name === 'objects'
            ? renamed(value, OBJECT_COUNTS_SHORT)
            : LAST_RUN_INSTANTS.has(name)
              ? storedInstant(value)
              : value;
  }
  return out;
}

function lastRunFromStore(run: unknown): unknown {
  if (!isFields(run)) return run;
  const out: Fields = {};
  for (const [stored, value] of Object.entries(run)) {
    // Only short names are decoded: a long-named item (written before) is as it was.
    const name = LAST_RUN_LONG[stored];
    if (name === undefined) {
      out[stored] = value;
      continue;
    }
    out[name] =
      name === 'kind'
        ? wordFromStore(value, RUN_KIND_WORDS)
        : name === 'trigger'
          ? wordFromStore(value, RUNNING_TRIGGER_OF_CODE)
          : name === 'objects'
            ? renamed(value, OBJECT_COUNTS_LONG)
            : LAST_RUN_INSTANTS.has(name)
              ? instantFromStore(value)
              : value;
  }
  return out;
}

/** The STATE item in the shapes its readers know, from either stored form (the lease beside it). */
export function stateItemFromStore<T>(item: T): T {
  if (!isFields(item)) return item;
  const out: Fields = { ...item };
  if (item.schedule !== undefined) out.schedule = scheduleFromStore(item.schedule, item as LeaseView);
  if (item.lastDecision !== undefined)
    out.lastDecision = instantsFromStoreIn(item.lastDecision, DECISION_INSTANTS);
  if (item.lastValidPace !== undefined) out.lastValidPace = renamed(item.lastValidPace, PACE_LONG);
  if (item.lastRun !== undefined) out.lastRun = lastRunFromStore(item.lastRun);
  return out as T;
}
