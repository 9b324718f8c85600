import { BillingMode, type Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';

/**
 * Issue 28: a table's capacity mode — on-demand (pay per request unit) or provisioned with auto scaling
 * (pay per provisioned unit-hour) — applied to the table and every one of its global indexes (in
 * provisioned mode each has capacity of its own, and an index short of write capacity throttles the
 * table's writes). The mode is the table's: its indexes follow it.
 *
 * Decided by cost in `npm run bench -- cost` (`dynamoCapacity`, bench/cost/dynamo-capacity.ts) from the
 * week's load per minute of every table and index, at 1,000, 10,000 and 100,000 sources; the decision and
 * its minimum and maximum capacity are `DECIDED_CAPACITY` below. Context `-c dynamoCapacity=onDemand|
 * provisioned` overrides the mode for every table; `-c fleetSources=…` picks the plan and scales it.
 *
 * Apply it to any table (`tableCapacity(scope, 'Name', replaces)`): `tableProps` at construction, `indexProps(name)`
 * for each global index, then `autoScale(table, indexNames)` once every index is added. Auto scaling uses
 * DynamoDB's service-linked role (AWSServiceRoleForApplicationAutoScaling_DynamoDBTable, created by AWS
 * on first use and scoped by AWS to DynamoDB scaling): the stack creates no role or policy for it.
 */

/** The context key (`cdk deploy -c dynamoCapacity=onDemand|provisioned`). */
export const DYNAMO_CAPACITY_CONTEXT = 'dynamoCapacity';

export type CapacityMode = 'onDemand' | 'provisioned';

/** Minimum and maximum units a second (scaled with `fleetSources` from the plan's fleet). */
export interface UnitRange {
  min: number;
  max: number;
}

/** Read and write ranges of a table or index. */
export interface UnitRanges {
  read: UnitRange;
  write: UnitRange;
}

/** A table's decided mode and its own and each index's ranges (used when provisioned). */
export interface TableCapacityPlan {
  mode: CapacityMode;
  /**
   * Target utilisation (percent) of every scaling policy of the table and its indexes, decided with the
   * ranges (AWS allows 20–90); TARGET_UTILISATION_PERCENT when absent.
   */
  targetPercent?: number;
  table: UnitRanges;
  indexes: Record<string, UnitRanges>;
}

/** The plans of every table for one fleet size. */
export interface FleetCapacityPlan {
  fleet: number;
  tables: Record<string, TableCapacityPlan>;
}

/** Target utilisation of auto scaling where no plan decides one (AWS's default). */
export const TARGET_UTILISATION_PERCENT = 70;

/** The range of a table or index no plan names (a new table or index): AWS's floor, room to scale. */
const FLOOR: UnitRanges = { read: { min: 1, max: 10 }, write: { min: 1, max: 10 } };

/**
 * An index being replaced (TableDefinition `replaces`, kept one release) holds every attribute, so each
 * copy its replacement writes costs it up to this many times the units: its range is the replacement's
 * times this.
 */
export const RETIRING_INDEX_FACTOR = 2;

const units = (readMin: number, readMax: number, writeMin: number, writeMax: number): UnitRanges => ({
  read: { min: readMin, max: readMax },
  write: { min: writeMin, max: writeMax },
});

/**
 * From `npm run bench -- cost` (`dynamoCapacity[].infraPlan`, 2026-12-03): per fleet size, the mode each
 * table pays least in (the week's load per minute, each minute's first second apart — the planner's
 * leases come at once — bench/cost/dynamo-capacity.ts), the target utilisation of its scaling policies
 * (70, 80 or 90 %: the cheapest at which none throttles in the simulated week) and the minimum and
 * maximum units a second its auto scaling chose for the table and each index, for the design after
 * the mirror's move (`-c mirrorTable=ownDropped`: State without `byList`; under `own` the index, empty,
 * gets the floor; while it moves State stays on-demand, infra/stack.ts). At 1,000 sources: State
 * provisioned at 90 % (€14.99 on-demand → €7.31 a month at list price), Sources, Documents and Mirror
 * on-demand (provisioned would cost more: €0.19 → €1.21, €1.85 → €4.56, €3.01 → €5.30 — the Mirror
 * table's load is the 03:00 full syncs' burst). At 100,000 Sources too is provisioned (€76.51 → €67.32); at 10,000 it is a tie (€2.39 on-demand, €2.40 provisioned) and stays on-demand.
 */
export const DECIDED_CAPACITY: readonly FleetCapacityPlan[] = [
  {
    fleet: 1_000,
    tables: {
      Sources: {
        mode: 'onDemand',
        targetPercent: 90,
        table: units(1, 4, 1, 2),
        indexes: { byHost: units(1, 2, 1, 2) },
      },
      State: {
        mode: 'provisioned',
        targetPercent: 90,
        table: units(4, 36, 3, 86),
        indexes: { byDueAt: units(1, 2, 2, 12) },
      },
      Documents: {
        mode: 'onDemand',
        targetPercent: 90,
        table: units(8, 58, 2, 12),
        indexes: { byNextAttempt: units(1, 2, 1, 4), bySource: units(1, 2, 1, 4) },
      },
      Mirror: {
        mode: 'onDemand',
        targetPercent: 80,
        table: units(3, 36, 2, 18),
        indexes: { byList: units(3, 30, 3, 24) },
      },
    },
  },
  {
    fleet: 10_000,
    tables: {
      Sources: {
        mode: 'onDemand',
        targetPercent: 90,
        table: units(10, 44, 1, 2),
        indexes: { byHost: units(1, 2, 1, 2) },
      },
      State: {
        mode: 'provisioned',
        targetPercent: 90,
        table: units(35, 354, 22, 858),
        indexes: { byDueAt: units(1, 2, 17, 102) },
      },
      Documents: {
        mode: 'onDemand',
        targetPercent: 90,
        table: units(44, 318, 8, 84),
        indexes: { byNextAttempt: units(1, 2, 3, 34), bySource: units(1, 2, 3, 34) },
      },
      Mirror: {
        mode: 'onDemand',
        targetPercent: 90,
        table: units(35, 308, 17, 152),
        indexes: { byList: units(28, 264, 28, 202) },
      },
    },
  },
  {
    fleet: 100_000,
    tables: {
      Sources: {
        mode: 'provisioned',
        targetPercent: 90,
        table: units(422, 2694, 1, 2),
        indexes: { byHost: units(1, 2, 1, 2) },
      },
      State: {
        mode: 'provisioned',
        targetPercent: 90,
        table: units(337, 3526, 269, 8562),
        indexes: { byDueAt: units(1, 2, 172, 1008) },
      },
      Documents: {
        mode: 'onDemand',
        targetPercent: 90,
        table: units(422, 3182, 87, 850),
        indexes: { byNextAttempt: units(1, 2, 28, 336), bySource: units(1, 2, 28, 336) },
      },
      Mirror: {
        mode: 'onDemand',
        targetPercent: 90,
        table: units(337, 3070, 172, 1512),
        indexes: { byList: units(337, 2636, 269, 2016) },
      },
    },
  },
];

/** The plan for `sources`: the largest fleet at or below it (the smallest below all), with its fleet. */
export function planFor(
  sources: number,
  plans: readonly FleetCapacityPlan[] = DECIDED_CAPACITY,
): FleetCapacityPlan {
  const sorted = [...plans].sort((a, b) => a.fleet - b.fleet);
  const first = sorted[0];
  if (first === undefined) return { fleet: sources, tables: {} };
  return sorted.filter((p) => p.fleet <= sources).pop() ?? first;
}

/** Relative difference of a minimum or maximum that `planDifferences` lets pass as the same (10 %). */
export const PLAN_TOLERANCE = 0.1;

/**
 * Where a plan held here differs from one the bench decided (pure): `Table mode …` or `Table/index read
 * min/max …` lines, empty when they agree — the bench prints it so a stale plan shows.
 */
export function planDifferences(
  held: Record<string, TableCapacityPlan>,
  decided: Record<string, TableCapacityPlan>,
  tolerance = PLAN_TOLERANCE,
): string[] {
  const out: string[] = [];
  // The bench's maxima move a little from run to run (its runs' wall time is measured work).
  const near = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && Math.abs(a - b) <= tolerance * Math.max(a, b);
  const same = (a: UnitRange | undefined, b: UnitRange | undefined) =>
    near(a?.min, b?.min) && near(a?.max, b?.max);
  const compare = (target: string, a: UnitRanges | undefined, b: UnitRanges | undefined) => {
    for (const kind of ['read', 'write'] as const)
      if (!same(a?.[kind], b?.[kind]))
        out.push(
          `${target} ${kind} ${a?.[kind]?.min}–${a?.[kind]?.max} ≠ ${b?.[kind]?.min}–${b?.[kind]?.max}`,
        );
  };
  for (const [table, d] of Object.entries(decided)) {
    const h = held[table];
    if (h?.mode !== d.mode) out.push(`${table} mode ${h?.mode ?? 'none'} ≠ ${d.mode}`);
    const target = (p: TableCapacityPlan | undefined) => p?.targetPercent ?? TARGET_UTILISATION_PERCENT;
    if (target(h) !== target(d)) out.push(`${table} target ${target(h)} % ≠ ${target(d)} %`);
    compare(table, h?.table, d.table);
    for (const [index, r] of Object.entries(d.indexes)) compare(`${table}/${index}`, h?.indexes[index], r);
  }
  return out;
}

/** The sources the stack is sized for (`-c fleetSources`, default 1,000), as the deletion shards read it. */
function fleetSourcesOf(scope: Construct): number {
  const raw = scope.node.tryGetContext('fleetSources');
  const n = raw === undefined ? 1_000 : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`fleetSources must be a whole number ≥ 1, got ${raw}`);
  return n;
}

/** The mode asked for in context, if any; refuses other values. */
export function capacityModeOf(value: unknown): CapacityMode | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === 'onDemand' || value === 'provisioned') return value;
  throw new Error(
    `context ${DYNAMO_CAPACITY_CONTEXT} must be onDemand or provisioned, got "${String(value)}"`,
  );
}

/** A range decided for `fleet` sources, at `sources` (pure): at least 1 unit, the maximum ≥ the minimum. */
export function scaledRange(range: UnitRange, sources: number, fleet = 1_000): UnitRange {
  const k = sources / fleet;
  const min = Math.max(1, Math.round(range.min * k));
  return { min, max: Math.max(min, Math.ceil(range.max * k)) };
}

export interface TableCapacity {
  mode: CapacityMode;
  /** Spread into the `Table` props. */
  tableProps: { billingMode: BillingMode; readCapacity?: number; writeCapacity?: number };
  /** Spread into each `addGlobalSecondaryIndex` props. */
  indexProps(indexName: string): { readCapacity?: number; writeCapacity?: number };
  /** Auto scaling of the table and the named indexes (provisioned only; nothing on-demand). */
  autoScale(table: Table, indexNames: readonly string[]): void;
}

/** On-demand: pay per request unit, no capacity, nothing to scale. */
export const ON_DEMAND: TableCapacity = {
  mode: 'onDemand',
  tableProps: { billingMode: BillingMode.PAY_PER_REQUEST },
  indexProps: () => ({}),
  autoScale: () => {},
};

/**
 * The capacity of the table `logicalName` (pure but for the context it reads): the context's mode, else
 * the one decided for the fleet (`fleetSources`); provisioned capacity starts at the minimum and scales
 * between the range's bounds. An index the plan does not name gets, if it is being replaced, its
 * replacement's range × RETIRING_INDEX_FACTOR, else the floor's.
 */
export function tableCapacity(
  scope: Construct,
  logicalName: string,
  replaces: Record<string, string> = {},
  plans: readonly FleetCapacityPlan[] = DECIDED_CAPACITY,
): TableCapacity {
  const sources = fleetSourcesOf(scope);
  const fleetPlan = planFor(sources, plans);
  const plan = fleetPlan.tables[logicalName];
  const mode = capacityModeOf(scope.node.tryGetContext(DYNAMO_CAPACITY_CONTEXT)) ?? plan?.mode ?? 'onDemand';
  if (mode === 'onDemand') return ON_DEMAND;
  const ranges = (of: UnitRanges, factor = 1) => ({
    read: scaledRange(of.read, sources * factor, fleetPlan.fleet),
    write: scaledRange(of.write, sources * factor, fleetPlan.fleet),
  });
  const table = ranges(plan?.table ?? FLOOR);
  const indexOf = (name: string) => {
    const own = plan?.indexes[name];
    if (own) return ranges(own);
    const replacement = plan?.indexes[replaces[name] ?? ''];
    return replacement ? ranges(replacement, RETIRING_INDEX_FACTOR) : ranges(FLOOR);
  };
  return {
    mode,
    tableProps: {
      billingMode: BillingMode.PROVISIONED,
      readCapacity: table.read.min,
      writeCapacity: table.write.min,
    },
    indexProps: (name) => ({ readCapacity: indexOf(name).read.min, writeCapacity: indexOf(name).write.min }),
    autoScale: (t, indexNames) => {
      const policy = { targetUtilizationPercent: plan?.targetPercent ?? TARGET_UTILISATION_PERCENT };
      const range = (r: UnitRange) => ({ minCapacity: r.min, maxCapacity: r.max });
      t.autoScaleReadCapacity(range(table.read)).scaleOnUtilization(policy);
      t.autoScaleWriteCapacity(range(table.write)).scaleOnUtilization(policy);
      for (const name of indexNames) {
        const r = indexOf(name);
        t.autoScaleGlobalSecondaryIndexReadCapacity(name, range(r.read)).scaleOnUtilization(policy);
        t.autoScaleGlobalSecondaryIndexWriteCapacity(name, range(r.write)).scaleOnUtilization(policy);
      }
    },
  };
}
