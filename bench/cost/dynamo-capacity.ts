/**
 * Issue 28: DynamoDB capacity mode decided by cost — on-demand (pay per request unit) against provisioned
 * capacity with auto scaling (pay per provisioned unit-hour), per table and per global index (each index
 * has its own capacity in provisioned mode), from a load profile per minute over a week.
 *
 * Pure: a profile (units consumed each minute) and a policy in, the capacity auto scaling would hold each
 * minute, the units it would throttle and the bill out. The bench (bench/cost.ts) builds the profiles from
 * its own cadence week; infra/table-capacity.ts applies the decision.
 *
 * How AWS scales, as simulated (each with its page):
 * - target tracking on consumed capacity: a scale-up when consumption is above the target utilisation for
 *   `scaleUpAfterMinutes` (2) consecutive minutes, a scale-down when it is 20 % or more below the target
 *   for `scaleDownAfterMinutes` (15) — AWS Knowledge Center "DynamoDB auto scaling" (repost.aws/
 *   knowledge-center/dynamodb-auto-scaling): "increases provisioned capacity when utilization exceeds
 *   70 RCUs for at least 2 consecutive minutes", "decreases … when utilization is 20% or more below the
 *   target for 15 consecutive minutes";
 * - decreases per table or index and UTC day: 4 at any time, then one more an hour after the last — at
 *   most 27 a day (DynamoDB developer guide, "Quotas", provisioned capacity decreases;
 *   ProvisionedThroughputDescription `NumberOfDecreasesToday`);
 * - burst capacity: "DynamoDB currently retains up to 5 minutes (300 seconds) of unused read and write
 *   capacity" (repost.aws/knowledge-center/dynamodb-spiky-workloads-short-intervals) — best effort, so the
 *   decision also reports what is throttled without it (`burstSeconds: 0`);
 * - the minimum of any table or index is 1 RCU and 1 WCU (developer guide, "Quotas").
 *
 * Demand within a minute: a minute's units are spread evenly over its seconds, except those a profile
 * names as arriving at once in its first second (`atOncePerMinute`: the planner tick's lease writes — it
 * writes a minute's starts 48 at a time, shared/planner tick.ts STORE_CONCURRENCY, ≈ 900 in about a
 * second), which must fit one second's capacity and the burst bucket then. A per-minute mean alone would
 * let a burst draw on the 59 seconds after it, which DynamoDB does not.
 *
 * Not simulated: a scale action's own delay beyond the next minute, and partition-level limits (3,000
 * RCU / 1,000 WCU per partition: far above this load). A throttled unit is retried by the SDK with
 * backoff (shared/store outage.ts) — counted once here, not added to later minutes.
 */

/** Minutes in the simulated week. */
export const MINUTES_PER_WEEK = 7 * 24 * 60;

/** AWS's floor for a provisioned table or index: 1 unit (developer guide, "Quotas"). */
export const MIN_PROVISIONED_UNITS = 1;

/** Decreases of one table's or index's capacity a UTC day: 4, then one an hour after the last; ≤ 27. */
export const DECREASES_FREE_PER_DAY = 4;
export const DECREASES_MAX_PER_DAY = 27;
/** Minutes after a decrease before the next beyond the first four (AWS: one an hour). */
export const DECREASE_SPACING_MINUTES = 60;

/** Seconds of unused capacity DynamoDB keeps for bursts (best effort). */
export const BURST_SECONDS = 300;

/** The auto scaling policy of one table or index. */
export interface CapacityPolicy {
  /** Target utilisation of the provisioned capacity (0–1); AWS's default is 0.7. */
  targetUtilisation: number;
  /** Units a second the capacity never goes below / above. */
  minUnits: number;
  maxUnits: number;
  /** Minutes above the target before a scale-up (CloudWatch alarm: 2 datapoints of a minute). */
  scaleUpAfterMinutes: number;
  /** Minutes 20 points below the target before a scale-down (15 datapoints). */
  scaleDownAfterMinutes: number;
  /** How far below the target the scale-down alarm sits (0.2: 20 percentage points). */
  scaleDownMargin: number;
  /** Seconds of unused capacity kept for bursts (300; 0 = none counted on). */
  burstSeconds: number;
}

/** AWS's defaults as the console sets them, with the caller's min and max. */
export function defaultPolicy(minUnits: number, maxUnits: number): CapacityPolicy {
  return {
    targetUtilisation: 0.7,
    minUnits,
    maxUnits,
    scaleUpAfterMinutes: 2,
    scaleDownAfterMinutes: 15,
    scaleDownMargin: 0.2,
    burstSeconds: BURST_SECONDS,
  };
}

/** Targets of utilisation the choice tries (AWS allows 20–90 %; 70 % is its default). */
export const TARGET_UTILISATIONS = [0.7, 0.8, 0.9] as const;

/** What a profile carries beside its units per minute. */
export interface DemandShape {
  /** The minute of the UTC day the profile starts at (the decrease quota counts per UTC day). */
  startMinuteOfDay?: number;
  /** Of each minute's units, those that arrive at once in its first second (the rest is even). */
  atOncePerMinute?: readonly number[];
}

export interface CapacityRun {
  /** Provisioned units a second, each minute. */
  capacity: number[];
  /** Units refused (demand above capacity and what burst capacity held), in all. */
  throttledUnits: number;
  /** Minutes in which something was refused. */
  throttledMinutes: number;
  /** Provisioned unit-hours over the profile. */
  unitHours: number;
  meanUnits: number;
  maxUnits: number;
  increases: number;
  decreases: number;
}

/** Target tracking's capacity for a consumption of `perSecond` units a second: at the target utilisation. */
function trackedUnits(perSecond: number, policy: CapacityPolicy): number {
  const units = Math.ceil(perSecond / policy.targetUtilisation);
  return Math.min(policy.maxUnits, Math.max(policy.minUnits, MIN_PROVISIONED_UNITS, units));
}

/** The burst bucket after one stretch of seconds (pure): what it served from the bucket, what it refused. */
function serveSeconds(
  bucket: { units: number; cap: number },
  demand: number,
  fresh: number,
): { refused: number; bucket: number } {
  const fromBurst = Math.min(bucket.units, Math.max(0, demand - fresh));
  const refused = Math.max(0, demand - fresh - fromBurst);
  return { refused, bucket: Math.min(bucket.cap, bucket.units - fromBurst + Math.max(0, fresh - demand)) };
}

/**
 * Auto scaling over a profile of units consumed per minute (pure). The profile starts at minute 0 of a
 * UTC day (`startMinuteOfDay` otherwise) — the day the decrease quota counts. Capacity starts at the
 * tracked capacity of the first minute's demand (a deploy sets it; the week before looks like this one).
 * Each minute is served as its first second (its at-once units and a second's share of the rest) and
 * the 59 seconds after, each against its capacity and the burst bucket.
 */
export function simulateAutoScaling(
  demandPerMinute: readonly number[],
  policy: CapacityPolicy,
  shape: DemandShape = {},
): CapacityRun {
  const startMinuteOfDay = shape.startMinuteOfDay ?? 0;
  let units = trackedUnits((demandPerMinute[0] ?? 0) / 60, policy);
  let burst = units * policy.burstSeconds;
  let above = 0;
  let below = 0;
  let decreasesToday = 0;
  let lastDecrease = Number.NEGATIVE_INFINITY;
  let day = -1;
  const capacity: number[] = [];
  const window: number[] = [];
  const run = { throttledUnits: 0, throttledMinutes: 0, unitSeconds: 0, increases: 0, decreases: 0, max: 0 };
  for (let m = 0; m < demandPerMinute.length; m += 1) {
    const today = Math.floor((m + startMinuteOfDay) / 1440);
    if (today !== day) {
      day = today;
      decreasesToday = 0;
    }
    const demand = demandPerMinute[m] ?? 0;
    const atOnce = Math.min(demand, shape.atOncePerMinute?.[m] ?? 0);
    const even = (demand - atOnce) / 60;
    capacity.push(units);
    run.unitSeconds += units * 60;
    run.max = Math.max(run.max, units);
    // Served from the second's capacity, then from the burst bucket; the rest is refused.
    const cap = units * policy.burstSeconds;
    const first = serveSeconds({ units: burst, cap }, atOnce + even, units);
    const rest = serveSeconds({ units: first.bucket, cap }, even * 59, units * 59);
    burst = rest.bucket;
    const refused = first.refused + rest.refused;
    if (refused > 0) {
      run.throttledUnits += refused;
      run.throttledMinutes += 1;
    }
    // The alarms see what was consumed (served), a second's mean over the minute.
    const consumed = (demand - refused) / 60;
    window.push(consumed);
    if (window.length > policy.scaleDownAfterMinutes) window.shift();
    const utilisation = consumed / units;
    above = utilisation > policy.targetUtilisation ? above + 1 : 0;
    below = utilisation < policy.targetUtilisation - policy.scaleDownMargin ? below + 1 : 0;
    if (above >= policy.scaleUpAfterMinutes && units < policy.maxUnits) {
      const next = trackedUnits(consumed, policy);
      if (next > units) {
        units = next;
        run.increases += 1;
      }
      above = 0;
      below = 0;
    } else if (below >= policy.scaleDownAfterMinutes && units > policy.minUnits) {
      const spaced = decreasesToday < DECREASES_FREE_PER_DAY || m - lastDecrease >= DECREASE_SPACING_MINUTES;
      const next = trackedUnits(Math.max(...window), policy);
      if (spaced && decreasesToday < DECREASES_MAX_PER_DAY && next < units) {
        units = next;
        decreasesToday += 1;
        lastDecrease = m;
        run.decreases += 1;
        below = 0;
      }
    }
  }
  const minutes = Math.max(1, demandPerMinute.length);
  return {
    capacity,
    throttledUnits: run.throttledUnits,
    throttledMinutes: run.throttledMinutes,
    unitHours: run.unitSeconds / 3600,
    meanUnits: run.unitSeconds / 60 / minutes,
    maxUnits: run.max,
    increases: run.increases,
    decreases: run.decreases,
  };
}

/** Prices of one kind of unit (read or write), in EUR. */
export interface UnitPrices {
  /** On-demand: one request unit. */
  eurPerRequestUnit: number;
  /** Provisioned: one capacity unit for an hour. */
  eurPerUnitHour: number;
}

/** A table's or index's weekly profile of one kind of unit. */
export interface UnitProfile {
  /** `Table` or `Table/index`. */
  target: string;
  kind: 'read' | 'write';
  demandPerMinute: readonly number[];
  /** Of each minute's units, those that arrive at once in its first second (the planner's leases). */
  atOncePerMinute?: readonly number[];
}

export interface CapacityChoice {
  target: string;
  kind: 'read' | 'write';
  /** Units a week on-demand bills. */
  unitsPerWeek: number;
  peakUnitsPerSecond: number;
  meanUnitsPerSecond: number;
  onDemandEurPerWeek: number;
  /** The cheapest policy that throttles nothing (with burst capacity), and its run. */
  policy: CapacityPolicy;
  run: Omit<CapacityRun, 'capacity'>;
  provisionedEurPerWeek: number;
  /** The chosen policy's throttled units if burst capacity were not there (it is best effort). */
  throttledWithoutBurst: number;
}

/**
 * Minimums the choice tries: every unit to 10, then steps of a quarter and the 1-2-5 steps (a minimum held all week is
 * most of a quiet table's bill: 1-2-5 steps made the lease burst's 10,000-source minimum 50 where 30 do).
 */
export const MINIMUMS_TRIED: readonly number[] = (() => {
  const out = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];
  for (let m = 10; m < 20_000; m = Math.ceil(m * 1.25)) out.push(m);
  return [...new Set(out)].sort((a, b) => a - b);
})();

/** What the choice of a policy may try: the maximum's headroom over the peak, the target utilisations. */
export interface ChoiceOptions {
  /** The maximum: this × the peak's tracked capacity (2). */
  maxHeadroom?: number;
  /** Target utilisations tried (TARGET_UTILISATIONS). */
  targets?: readonly number[];
}

/**
 * The cheapest auto scaling policy for a profile that throttles nothing (pure): for each target
 * utilisation, minimums from 1 up to the peak's tracked capacity, each with a maximum of `maxHeadroom` ×
 * the peak's tracked capacity. Ties go to the policy that leans less on burst capacity, then to the
 * lower target (more headroom for what the profile does not show).
 */
export function chooseCapacity(
  profile: UnitProfile,
  prices: UnitPrices,
  { maxHeadroom = 2, targets = TARGET_UTILISATIONS }: ChoiceOptions = {},
): CapacityChoice {
  const demand = profile.demandPerMinute;
  const shape = profile.atOncePerMinute ? { atOncePerMinute: profile.atOncePerMinute } : {};
  const unitsPerWeek = demand.reduce((s, d) => s + d, 0);
  const peak = Math.max(0, ...demand) / 60;
  // One policy's choice: its simulated week, its bill, and what it throttles without burst capacity.
  const choiceOf = (policy: CapacityPolicy): CapacityChoice => {
    const { capacity: _capacity, ...run } = simulateAutoScaling(demand, policy, shape);
    return {
      target: profile.target,
      kind: profile.kind,
      unitsPerWeek,
      peakUnitsPerSecond: peak,
      meanUnitsPerSecond: unitsPerWeek / Math.max(1, demand.length) / 60,
      onDemandEurPerWeek: unitsPerWeek * prices.eurPerRequestUnit,
      policy,
      run,
      provisionedEurPerWeek: run.unitHours * prices.eurPerUnitHour,
      throttledWithoutBurst: simulateAutoScaling(demand, { ...policy, burstSeconds: 0 }, shape)
        .throttledUnits,
    };
  };
  const policyOf = (targetUtilisation: number, minUnits: number, maxUnits: number): CapacityPolicy => ({
    ...defaultPolicy(minUnits, Math.max(minUnits, maxUnits)),
    targetUtilisation,
  });
  let best: CapacityChoice | undefined;
  for (const target of targets) {
    const peakUnits = trackedUnits(peak, {
      ...defaultPolicy(1, Number.POSITIVE_INFINITY),
      targetUtilisation: target,
    });
    const maxUnits = Math.max(MIN_PROVISIONED_UNITS, Math.ceil(peakUnits * maxHeadroom));
    const mins = [...new Set([...MINIMUMS_TRIED, peakUnits])]
      .filter((m) => m <= peakUnits)
      .sort((a, b) => a - b);
    for (const minUnits of mins) {
      const choice = choiceOf(policyOf(target, minUnits, maxUnits));
      if (choice.run.throttledUnits > 0) continue;
      const eur = choice.provisionedEurPerWeek;
      const better =
        best === undefined ||
        eur < best.provisionedEurPerWeek - 1e-9 ||
        (Math.abs(eur - best.provisionedEurPerWeek) <= 1e-9 &&
          choice.throttledWithoutBurst < best.throttledWithoutBurst);
      if (better) best = choice;
    }
  }
  // Only when every policy throttles: a fixed capacity at the peak's tracked capacity (AWS's default
  // target) — it throttles no per-minute peak; the choice reports what it throttles.
  if (best === undefined) {
    const fixed = trackedUnits(peak, defaultPolicy(1, Number.POSITIVE_INFINITY));
    best = choiceOf(defaultPolicy(fixed, Math.max(fixed, Math.ceil(fixed * maxHeadroom))));
  }
  return best;
}

export type CapacityMode = 'onDemand' | 'provisioned';

export interface TableDecision {
  table: string;
  /** DynamoDB's capacity mode is the table's: its indexes follow it. */
  mode: CapacityMode;
  /** The target utilisation of every scaling policy of the table and its indexes (one per table). */
  targetUtilisation: number;
  onDemandEurPerWeek: number;
  provisionedEurPerWeek: number;
  /** Per target (table and each index) and kind: the chosen policy and its figures. */
  choices: CapacityChoice[];
}

/**
 * The mode of each table by cost (pure): a table's capacity mode covers its global indexes, so the table
 * goes provisioned only when its own and all its indexes' provisioned bill (each with its own policy)
 * is below their on-demand bill together. `profiles` name their target `Table` or `Table/index`. One
 * target utilisation per table (infra/table-capacity.ts applies one): the cheapest of `options.targets`
 * at which no policy of the table throttles; ties go to the lower target.
 */
export function decideTables(
  profiles: readonly UnitProfile[],
  prices: { read: UnitPrices; write: UnitPrices },
  options: ChoiceOptions = {},
): TableDecision[] {
  const byTable = new Map<string, UnitProfile[]>();
  for (const p of profiles) {
    const table = p.target.split('/')[0] as string;
    byTable.set(table, [...(byTable.get(table) ?? []), p]);
  }
  const targets = options.targets ?? TARGET_UTILISATIONS;
  return [...byTable.entries()].map(([table, tableProfiles]) => {
    const tries = targets.map((targetUtilisation) => {
      const choices = tableProfiles.map((p) =>
        chooseCapacity(p, prices[p.kind], { ...options, targets: [targetUtilisation] }),
      );
      return {
        targetUtilisation,
        choices,
        eur: choices.reduce((s, c) => s + c.provisionedEurPerWeek, 0),
        throttles: choices.some((c) => c.run.throttledUnits > 0),
      };
    });
    const fit = tries.filter((t) => !t.throttles);
    const pool = fit.length > 0 ? fit : tries;
    const best = pool.reduce((a, b) => (b.eur < a.eur - 1e-9 ? b : a));
    const onDemandEurPerWeek = best.choices.reduce((s, c) => s + c.onDemandEurPerWeek, 0);
    return {
      table,
      mode: best.eur < onDemandEurPerWeek ? 'provisioned' : 'onDemand',
      targetUtilisation: best.targetUtilisation,
      onDemandEurPerWeek,
      provisionedEurPerWeek: best.eur,
      choices: best.choices,
    };
  });
}

/** Units of one run (or one minute's fixed work) by target (`Table` or `Table/index`). */
export type UnitsByTarget = Record<string, { read: number; write: number }>;

/** One kind of run of the fleet: starts wanted per minute of the week, its wall minutes, its units. */
export interface RunKindLoad {
  /** Runs of the whole fleet that become due in each minute of the week (fractions allowed). */
  startsPerMinute: readonly number[];
  minutes: number;
  units: UnitsByTarget;
  /**
   * Of `units`, those a run spends at once in the first second of its start minute (the planner tick's
   * lease write and its index copy: a tick writes its starts' leases together).
   */
  atStart?: UnitsByTarget;
}

/** A target's load each minute of the week, and of it what arrives at once in the minute's first second. */
export interface TargetLoad {
  read: number[];
  write: number[];
  readAtOnce: number[];
  writeAtOnce: number[];
}

export interface FleetLoadInput {
  kinds: readonly RunKindLoad[];
  /** SCH-5: runs in flight at most; a due run waits for a slot (first come, first served). */
  slots: number;
  /** Work that is not a run, each minute of the week (planner ticks, hourly jobs, the API). */
  fixed: readonly { perMinute: readonly number[]; units: UnitsByTarget }[];
}

/**
 * The fleet's units per minute of the week by target and kind (pure): runs start when due unless SCH-5's
 * slots are full (then they wait, as the planner holds them back), and each spends its units evenly over
 * its wall minutes. Two weeks are simulated and the second kept, so the week's end carries into its start.
 */
export function fleetLoad(input: FleetLoadInput, minutes = MINUTES_PER_WEEK): Record<string, TargetLoad> {
  const targets = new Set<string>();
  for (const k of input.kinds) for (const t of Object.keys({ ...k.units, ...k.atStart })) targets.add(t);
  for (const f of input.fixed) for (const t of Object.keys(f.units)) targets.add(t);
  const span = Math.max(1, ...input.kinds.map((k) => Math.round(k.minutes)));
  const horizon = 2 * minutes + span + 1;
  // Runs per minute in flight of each kind, as a difference array (a start adds over its span).
  const rate = input.kinds.map(() => new Array<number>(horizon).fill(0));
  const ends = new Array<number>(horizon).fill(0);
  const out: Record<string, TargetLoad> = {};
  const zeros = () => new Array<number>(minutes).fill(0);
  for (const t of targets)
    out[t] = { read: zeros(), write: zeros(), readAtOnce: zeros(), writeAtOnce: zeros() };
  const queue = input.kinds.map(() => 0);
  let inFlight = 0;
  for (let m = 0; m < 2 * minutes; m += 1) {
    inFlight -= ends[m] ?? 0;
    input.kinds.forEach((k, i) => {
      queue[i] = (queue[i] ?? 0) + (k.startsPerMinute[m % minutes] ?? 0);
    });
    const waiting = queue.reduce((s, q) => s + q, 0);
    const take = Math.min(Math.max(0, input.slots - inFlight), waiting);
    if (take <= 0) continue;
    const share = take / waiting;
    input.kinds.forEach((k, i) => {
      const started = (queue[i] ?? 0) * share;
      queue[i] = (queue[i] ?? 0) - started;
      const d = Math.max(1, Math.round(k.minutes));
      inFlight += started;
      ends[m + d] = (ends[m + d] ?? 0) + started;
      const r = rate[i] as number[];
      r[m] = (r[m] ?? 0) + started / d;
      r[m + d] = (r[m + d] ?? 0) - started / d;
      // The second week's starts: their at-once units in their start minute, and in its first second.
      if (m < minutes) return;
      for (const [t, u] of Object.entries(k.atStart ?? {})) {
        const o = out[t] as TargetLoad;
        const j = m - minutes;
        o.read[j] = (o.read[j] ?? 0) + started * u.read;
        o.write[j] = (o.write[j] ?? 0) + started * u.write;
        o.readAtOnce[j] = (o.readAtOnce[j] ?? 0) + started * u.read;
        o.writeAtOnce[j] = (o.writeAtOnce[j] ?? 0) + started * u.write;
      }
    });
  }
  input.kinds.forEach((k, i) => {
    let running = 0;
    const r = rate[i] as number[];
    for (let m = 0; m < horizon; m += 1) {
      running += r[m] ?? 0;
      // The second week, and what spills past it wrapped to its start.
      if (m < minutes || running <= 0) continue;
      const j = (m - minutes) % minutes;
      // The run's units but those it spends at once (placed at its start above), evenly.
      for (const [t, u] of Object.entries(k.units)) {
        const o = out[t] as TargetLoad;
        const once = k.atStart?.[t];
        o.read[j] = (o.read[j] ?? 0) + running * (u.read - (once?.read ?? 0));
        o.write[j] = (o.write[j] ?? 0) + running * (u.write - (once?.write ?? 0));
      }
    }
  });
  for (const f of input.fixed)
    for (let m = 0; m < minutes; m += 1) {
      const n = f.perMinute[m] ?? 0;
      if (n === 0) continue;
      for (const [t, u] of Object.entries(f.units)) {
        const o = out[t] as TargetLoad;
        o.read[m] = (o.read[m] ?? 0) + n * u.read;
        o.write[m] = (o.write[m] ?? 0) + n * u.write;
      }
    }
  return out;
}

/** The tables' and index's names a run's units move between when the mirror has its own table. */
export interface MirrorTargets {
  /** The table the engine writes the mirror's object items to in the local bench (State). */
  state: string;
  /** The mirror's own table (issue 28, shared/store tables.ts MIRROR_TABLE). */
  mirror: string;
  /** The list index both carry (`byList`). */
  index: string;
}

/** A run's units on the mirror's object items in State as the bench measures them (issue 28). */
export interface MirrorItemUnits {
  /** Write units of the object items (`PutItem object-hash`), their `byList` copies apart. */
  writes: number;
  /** Read units of the object items read by key (`BatchGetItem MIRROR`, lookups; not the list index). */
  reads: number;
}

/**
 * Issue 28 (the mirror's own table): a run's units as they fall when the mirror's object items live in
 * the Mirror table. The bench measures its runs with the items in State (the local default phase), so
 * their writes and reads by key and every unit of State's list index (it indexes mirror items alone)
 * move to the Mirror table and its index — otherwise State would be sized, and billed, for load the
 * Mirror table carries.
 */
export function withMirrorTable(
  units: UnitsByTarget,
  items: MirrorItemUnits,
  names: MirrorTargets,
): UnitsByTarget {
  const out: UnitsByTarget = { ...units };
  const stateIndex = `${names.state}/${names.index}`;
  const state = out[names.state] ?? { read: 0, write: 0 };
  const moved = { read: Math.min(items.reads, state.read), write: Math.min(items.writes, state.write) };
  out[names.state] = { read: state.read - moved.read, write: state.write - moved.write };
  const mirror = out[names.mirror] ?? { read: 0, write: 0 };
  out[names.mirror] = { read: mirror.read + moved.read, write: mirror.write + moved.write };
  const index = out[stateIndex];
  if (index) {
    const mirrorIndex = out[`${names.mirror}/${names.index}`] ?? { read: 0, write: 0 };
    out[`${names.mirror}/${names.index}`] = {
      read: mirrorIndex.read + index.read,
      write: mirrorIndex.write + index.write,
    };
    delete out[stateIndex];
  }
  return out;
}
