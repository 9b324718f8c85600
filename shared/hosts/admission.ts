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

export function admitRuns(input: AdmissionInput): Admission {
  const { settings } = input;
  const inFlight = new Map<string, number>();
  for (const r of input.running) {
    if (r.host === undefined) continue;
    const key = hostKey(r.host);
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
  }
  let freeSlots = Math.max(0, settings.maxConcurrentSyncs - input.running.length);
  // FULL-3: full syncs leave the incrementals the slots their demand needs (at least one).
  const slotShares = fullSyncSlotsFor(input.hosts, settings, input.fullSyncSlotsNeeded);
  const fullSlots = slotShares.full;
  // SCH-5: a run waiting for a slot says when the slots are short of the demand (the sizing signal).
  const short = slotsShortText(slotShares, settings.maxConcurrentSyncs);
  const slotWait = `all ${settings.maxConcurrentSyncs} sync slots busy (SCH-5)${short ? `; ${short}` : ''}`;
  let freeFullSlots = Math.max(0, fullSlots - input.running.filter((r) => r.kind !== 'incremental').length);
  const limitOf = (host: string) => input.hosts.get(host)?.runLimit ?? 1;
  const hostHasRoom = (host: string) => (inFlight.get(host) ?? 0) < limitOf(host);
  const take = (host: string) => inFlight.set(host, (inFlight.get(host) ?? 0) + 1);

  const start: SourceDecision[] = [];
  const waiting: WaitingRun[] = [];
  const blocked: Candidate[] = [];
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  for (const d of input.due) {
    const { decision } = d;
    if (decision.action !== 'sync' || decision.kind === undefined || seen.has(decision.sourceId)) continue;
    seen.add(decision.sourceId);
    candidates.push({ decision, host: hostKey(d.host), sessionDay: d.sessionDay === true });
  }

  // FULL-3 per host: a full sync the host's window budget cannot carry tonight goes to the next night;
  // its source keeps the incremental cadence meanwhile.
  const fulls: Candidate[] = [];
  const incrementals: Candidate[] = [];
  for (const c of candidates) {
    if (c.decision.kind === 'incremental') {
      incrementals.push(c);
      continue;
    }
    const behind = input.fullSyncBehind?.get(c.decision.sourceId);
    if (behind === undefined) fulls.push(c);
    else if (c.decision.incrementalDue)
      incrementals.push({ ...c, decision: asIncrementalFallback(c.decision, behind) });
    else
      waiting.push({
        sourceId: c.decision.sourceId,
        host: c.host,
        decision: c.decision,
        reason: behind,
        ruleIds: ['FULL-3', 'RATE-9'],
        waitingFor: { kind: 'full-sync-budget', host: c.host },
      });
  }

  fulls.sort((a, b) => byOldestFullSync(a.decision, b.decision));
  for (const c of fulls) {
    if (!hostHasRoom(c.host)) {
      c.hostBlocked = limitOf(c.host) === 0 ? 'paused' : 'busy';
      blocked.push(c);
      continue;
    }
    if (freeSlots > 0 && freeFullSlots > 0) {
      start.push(c.decision);
      take(c.host);
      freeSlots -= 1;
      freeFullSlots -= 1;
      continue;
    }
    const why = fullSyncWaitReason(freeSlots, settings, fullSlots);
    if (c.decision.incrementalDue)
      incrementals.push({ ...c, decision: asIncrementalFallback(c.decision, why) });
    else
      waiting.push({
        sourceId: c.decision.sourceId,
        host: c.host,
        decision: c.decision,
        reason: why,
        ruleIds: ['FULL-3', 'SCH-5'],
        waitingFor: { kind: 'slot' },
      });
  }

  // A free slot goes to the most overdue run whose host has room; that host then serves its own most
  // urgent run (manual, session day, most overdue).
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
    if (freeSlots > 0 && hostHasRoom(next.host)) {
      const chosen = list.find((c) => !done.has(c.decision.sourceId)) as Candidate;
      done.add(chosen.decision.sourceId);
      start.push(chosen.decision);
      take(next.host);
      freeSlots -= 1;
      // The host's own pick may differ from `next`; `next` is looked at again below if it was not chosen.
      if (chosen !== next) order.push(next);
      continue;
    }
    done.add(next.decision.sourceId);
    if (!hostHasRoom(next.host)) {
      next.hostBlocked = limitOf(next.host) === 0 ? 'paused' : 'busy';
      blocked.push(next);
    } else {
      waiting.push({
        sourceId: next.decision.sourceId,
        host: next.host,
        decision: next.decision,
        reason: slotWait,
        ruleIds: ['SCH-5'],
        waitingFor: { kind: 'slot' },
      });
    }
  }

  const queuedByHost = new Map<string, number>();
  for (const c of blocked) queuedByHost.set(c.host, (queuedByHost.get(c.host) ?? 0) + 1);
  for (const c of blocked) {
    const model = input.hosts.get(c.host);
    const queued = queuedByHost.get(c.host) ?? 0;
    const runs = `${queued} run${queued === 1 ? '' : 's'} queued`;
    const reason =
      c.hostBlocked === 'paused'
        ? `host ${c.host} paused until ${model?.pausedUntil ?? '?'} (RATE-8): ${runs}`
        : `host ${c.host} busy: ${runs}; ${inFlight.get(c.host) ?? 0} of ${limitOf(c.host)} run${limitOf(c.host) === 1 ? '' : 's'} its pace keeps busy already (RATE-9, RATE-4)`;
    const paused = c.hostBlocked === 'paused';
    waiting.push({
      sourceId: c.decision.sourceId,
      host: c.host,
      decision: c.decision,
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
  return { start, waiting, queuedByHost, slotsNeeded: slotShares.needed };
}
