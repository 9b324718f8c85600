import {
  asIncrementalFallback,
  byOldestFullSync,
  byUrgency,
  fullSyncWaitReason,
  type ScheduleSettings,
  type SourceDecision,
  type SyncKind,
} from '../schedule';
import { fullSyncSlotsFor, slotsShortText } from './full-sync-budget';
import { hostKeyOf as hostKey } from './key';
import type { HostModel } from './model';

/**
 * RATE-9 and SCH-5, pure: which due runs start now. The sync slots go to runs whose host can serve them
 * now; per host never more runs than its pace keeps busy (`HostModel.runLimit`, never more than RATE-4's
 * two); the others wait with a reason. Every due run is looked at, whatever the order of the list: a
 * busy host never blocks a run on another host (no head-of-line blocking).
 */

/** A run the decisions say is due (`decideSource` → action `sync`). */
export interface DueRun {
  decision: SourceDecision;
  /** Host name or URL of the source (keyed with `hostKey`). */
  host: string;
  /** SCH-2: a session day or the day before — first on its host (RATE-9: session days first). */
  sessionDay?: boolean;
}

/** A run that holds its lease now (SCH-5). */
export interface RunningRun {
  sourceId: string;
  /** Undefined for a source no longer configured: its run still holds a slot (SCH-5), on no known host. */
  host?: string;
  kind: SyncKind;
}

export interface AdmissionInput {
  due: readonly DueRun[];
  running: readonly RunningRun[];
  /** From `hostModelsOf`; a host missing here counts as one run at a time. */
  hosts: ReadonlyMap<string, HostModel>;
  settings: Pick<ScheduleSettings, 'maxConcurrentSyncs'>;
  /** FULL-3 per host (`planHostFullSyncs`): source id → why its full sync is behind tonight. */
  fullSyncBehind?: ReadonlyMap<string, string>;
  /** FULL-3: the slots tonight's full syncs need (`FullSyncPlans.slotsNeeded`); shares short slots. */
  fullSyncSlotsNeeded?: number;
}

/**
 * What a waiting run waits for, set where the admission decides (so nobody has to read it back from
 * rule ids or reason texts): its busy host (RATE-9 / RATE-4 — the only wait a host lane takes over), its
 * paused host (RATE-8), a free sync slot (SCH-5) or tonight's full-sync budget (FULL-3).
 */
export type WaitingFor =
  | { kind: 'host'; host: string }
  | { kind: 'paused-host'; host: string; until?: string }
  | { kind: 'slot' }
  | { kind: 'full-sync-budget'; host: string };

export interface WaitingRun {
  sourceId: string;
  host: string;
  decision: SourceDecision;
  reason: string;
  ruleIds: string[];
  waitingFor: WaitingFor;
}

export interface Admission {
  /** Start these now (a full decision may come back as an incremental, FULL-3). */
  start: SourceDecision[];
  /** SCH-5: the slots the fleet needs now (`FullSyncSlots.needed`); more than the settings': short. */
  slotsNeeded: number;
  waiting: WaitingRun[];
  /** Per host key: due runs that wait for their host (not for a slot). */
  queuedByHost: Map<string, number>;
}

interface Candidate {
  decision: SourceDecision;
  host: string;
  sessionDay: boolean;
  /** Why the run cannot start on its host now; filled in after the pass (needs the queue length). */
  hostBlocked?: 'busy' | 'paused';
}

/** On one host: manual requests, then session days (RATE-9), then the most overdue. */
function byHostPriority(a: Candidate, b: Candidate): number {
  const manual = Number(b.decision.trigger === 'manual') - Number(a.decision.trigger === 'manual');
  return manual || Number(b.sessionDay) - Number(a.sessionDay) || byUrgency(a.decision, b.decision);
}

/**
 * One admission's running tally: the runs in flight per host, the free slots (all, and those full
 * syncs may take), and the outcome so far. The steps below fill it in order.
 */
interface Pass {
  input: AdmissionInput;
  inFlight: Map<string, number>;
  freeSlots: number;
  freeFullSlots: number;
  /** FULL-3: the slots full syncs may hold at once. */
  fullSlots: number;
  /** SCH-5: why a run waits for a slot, with the sizing signal when the slots are short. */
  slotWait: string;
  start: SourceDecision[];
  waiting: WaitingRun[];
  /** Runs their host cannot serve now; reported once the queue lengths are known. */
  blocked: Candidate[];
}

export function admitRuns(input: AdmissionInput): Admission {
  const { settings } = input;
  // FULL-3: full syncs leave the incrementals the slots their demand needs (at least one).
  const slotShares = fullSyncSlotsFor(input.hosts, settings, input.fullSyncSlotsNeeded);
  const pass = passOf(input, slotShares);
  const { fulls, incrementals } = splitByKind(pass, dueCandidates(input));
  admitFulls(pass, fulls, incrementals);
  admitIncrementals(pass, incrementals);
  const queuedByHost = reportBlocked(pass);
  return { start: pass.start, waiting: pass.waiting, queuedByHost, slotsNeeded: slotShares.needed };
}

function passOf(input: AdmissionInput, slotShares: ReturnType<typeof fullSyncSlotsFor>): Pass {
  const { settings } = input;
  const inFlight = new Map<string, number>();
  for (const r of input.running) {
    if (r.host === undefined) continue;
    const key = hostKey(r.host);
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
  }
  // SCH-5: a run waiting for a slot says when the slots are short of the demand (the sizing signal).
  const short = slotsShortText(slotShares, settings.maxConcurrentSyncs);
  return {
    input,
    inFlight,
    freeSlots: Math.max(0, settings.maxConcurrentSyncs - input.running.length),
    freeFullSlots: Math.max(
      0,
      slotShares.full - input.running.filter((r) => r.kind !== 'incremental').length,
    ),
    fullSlots: slotShares.full,
    slotWait: `all ${settings.maxConcurrentSyncs} sync slots busy (SCH-5)${short ? `; ${short}` : ''}`,
    start: [],
    waiting: [],
    blocked: [],
  };
}

/** RATE-9: the runs its pace keeps busy on a host (a host the models do not know: one at a time). */
function limitOf(pass: Pass, host: string): number {
  return pass.input.hosts.get(host)?.runLimit ?? 1;
}

function hostHasRoom(pass: Pass, host: string): boolean {
  return (pass.inFlight.get(host) ?? 0) < limitOf(pass, host);
}

/** Start `c` now: one more run on its host, one slot fewer. */
function admit(pass: Pass, c: Candidate): void {
  pass.start.push(c.decision);
  pass.inFlight.set(c.host, (pass.inFlight.get(c.host) ?? 0) + 1);
  pass.freeSlots -= 1;
}

/** Its host cannot serve `c` now: paused (RATE-8, a limit of 0) or busy (RATE-9 / RATE-4). */
function blockOnHost(pass: Pass, c: Candidate): void {
  c.hostBlocked = limitOf(pass, c.host) === 0 ? 'paused' : 'busy';
  pass.blocked.push(c);
}

function waitFor(pass: Pass, c: Candidate, why: Pick<WaitingRun, 'reason' | 'ruleIds' | 'waitingFor'>): void {
  pass.waiting.push({ sourceId: c.decision.sourceId, host: c.host, decision: c.decision, ...why });
}

/** The due runs that would sync, each source once, keyed by host. */
function dueCandidates(input: AdmissionInput): Candidate[] {
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const d of input.due) {
    const { decision } = d;
    if (decision.action !== 'sync' || decision.kind === undefined || seen.has(decision.sourceId)) continue;
    seen.add(decision.sourceId);
    candidates.push({ decision, host: hostKey(d.host), sessionDay: d.sessionDay === true });
  }
  return candidates;
}

/**
 * FULL-3 per host: a full sync the host's window budget cannot carry tonight goes to the next night;
 * its source keeps the incremental cadence meanwhile.
 */
function splitByKind(pass: Pass, candidates: Candidate[]): { fulls: Candidate[]; incrementals: Candidate[] } {
  const fulls: Candidate[] = [];
  const incrementals: Candidate[] = [];
  for (const c of candidates) {
    if (c.decision.kind === 'incremental') {
      incrementals.push(c);
      continue;
    }
    const behind = pass.input.fullSyncBehind?.get(c.decision.sourceId);
    if (behind === undefined) fulls.push(c);
    else if (c.decision.incrementalDue)
      incrementals.push({ ...c, decision: asIncrementalFallback(c.decision, behind) });
    else
      waitFor(pass, c, {
        reason: behind,
        ruleIds: ['FULL-3', 'RATE-9'],
        waitingFor: { kind: 'full-sync-budget', host: c.host },
      });
  }
  return { fulls, incrementals };
}

/** FULL-3: the oldest full syncs first, within the full-sync slots; one without a slot falls back or waits. */
function admitFulls(pass: Pass, fulls: Candidate[], incrementals: Candidate[]): void {
  fulls.sort((a, b) => byOldestFullSync(a.decision, b.decision));
  for (const c of fulls) {
    if (!hostHasRoom(pass, c.host)) {
      blockOnHost(pass, c);
      continue;
    }
    if (pass.freeSlots > 0 && pass.freeFullSlots > 0) {
      admit(pass, c);
      pass.freeFullSlots -= 1;
      continue;
    }
    const why = fullSyncWaitReason(pass.freeSlots, pass.input.settings, pass.fullSlots);
    if (c.decision.incrementalDue)
      incrementals.push({ ...c, decision: asIncrementalFallback(c.decision, why) });
    else waitFor(pass, c, { reason: why, ruleIds: ['FULL-3', 'SCH-5'], waitingFor: { kind: 'slot' } });
  }
}

/**
 * A free slot goes to the most overdue run whose host has room; that host then serves its own most
 * urgent run (manual, session day, most overdue).
 */
function admitIncrementals(pass: Pass, incrementals: Candidate[]): void {
  const pendingByHost = new Map<string, Candidate[]>();
  for (const c of incrementals) {
    const list = pendingByHost.get(c.host);
    if (list) list.push(c);
    else pendingByHost.set(c.host, [c]);
  }
  for (const list of pendingByHost.values()) list.sort(byHostPriority);
  const order = [...incrementals].sort((a, b) => byUrgency(a.decision, b.decision));
  const done = new Set<string>();
  for (const next of order) {
    if (done.has(next.decision.sourceId)) continue;
    const list = pendingByHost.get(next.host) as Candidate[];
    if (pass.freeSlots > 0 && hostHasRoom(pass, next.host)) {
      const chosen = list.find((c) => !done.has(c.decision.sourceId)) as Candidate;
      done.add(chosen.decision.sourceId);
      admit(pass, chosen);
      // The host's own pick may differ from `next`; `next` is looked at again below if it was not chosen.
      if (chosen !== next) order.push(next);
      continue;
    }
    done.add(next.decision.sourceId);
    if (!hostHasRoom(pass, next.host)) blockOnHost(pass, next);
    else waitFor(pass, next, { reason: pass.slotWait, ruleIds: ['SCH-5'], waitingFor: { kind: 'slot' } });
  }
}

/** The runs their host cannot serve now wait for it, each saying how many are queued there. */
function reportBlocked(pass: Pass): Map<string, number> {
  const queuedByHost = new Map<string, number>();
  for (const c of pass.blocked) queuedByHost.set(c.host, (queuedByHost.get(c.host) ?? 0) + 1);
  for (const c of pass.blocked) {
    const model = pass.input.hosts.get(c.host);
    const queued = queuedByHost.get(c.host) ?? 0;
    const runs = `${queued} run${queued === 1 ? '' : 's'} queued`;
    const limit = limitOf(pass, c.host);
    const paused = c.hostBlocked === 'paused';
    const reason = paused
      ? `host ${c.host} paused until ${model?.pausedUntil ?? '?'} (RATE-8): ${runs}`
      : `host ${c.host} busy: ${runs}; ${pass.inFlight.get(c.host) ?? 0} of ${limit} run${limit === 1 ? '' : 's'} its pace keeps busy already (RATE-9, RATE-4)`;
    waitFor(pass, c, {
      reason,
      ruleIds: paused ? ['RATE-8', 'RATE-9'] : ['RATE-9', 'RATE-4', 'SCH-5'],
      waitingFor: paused
        ? {
            kind: 'paused-host',
            host: c.host,
            ...(model?.pausedUntil === undefined ? {} : { until: model.pausedUntil }),
          }
        : { kind: 'host', host: c.host },
    });
  }
  return queuedByHost;
}
