import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  capacityModeOf,
  planDifferences,
  planFor,
  RETIRING_INDEX_FACTOR,
  scaledRange,
  TARGET_UTILISATION_PERCENT,
} from '../../infra/table-capacity';
import { retiringIndexes, TABLES } from '../../shared/store/tables';
import { removeTempOutdirs, synthWithNag } from '../support/cdk';

/**
 * Issue 28: every table and each of its global indexes in the capacity mode asked for (context
 * `dynamoCapacity`), provisioned ones with auto scaling between the decided range scaled to
 * `fleetSources`. Least privilege: scaling runs as DynamoDB's service-linked role — the stack adds no
 * role or policy for it.
 */
const FLEET = 10_000;
const PROPS = {
  documentFunctions: false,
  previewFunction: false,
  geoFunction: false,
  broadcastFunction: false,
  mirrorApi: false,
} as const;

type Json = Record<string, unknown>;

describe('CDK: DynamoDB capacity (issue 28)', () => {
  let provisioned: Template;
  let onDemand: Template;
  let decidedOwn: Template;
  let decidedDual: Template;
  let provisionedError: unknown;

  beforeAll(() => {
    ({ template: provisioned, synthError: provisionedError } = synthWithNag(
      'capacity-provisioned',
      'CapacityProvisioned',
      PROPS,
      { dynamoCapacity: 'provisioned', fleetSources: FLEET },
    ));
    ({ template: onDemand } = synthWithNag('capacity-on-demand', 'CapacityOnDemand', PROPS, {
      dynamoCapacity: 'onDemand',
    }));
    // As decided (no mode asked), after the mirror's move (deploy 2) — and during it (deploy 1, the default).
    ({ template: decidedOwn } = synthWithNag('capacity-decided-own', 'CapacityDecidedOwn', PROPS, {
      mirrorTable: 'own',
    }));
    ({ template: decidedDual } = synthWithNag('capacity-decided-dual', 'CapacityDecidedDual', PROPS, {}));
  }, 240_000);
  afterAll(removeTempOutdirs);

  const tables = (t: Template) => Object.values(t.findResources('AWS::DynamoDB::Table'));
  // By logical id: State and Mirror share their key names (issue 28, the mirror's own table).
  const tableNamed = (t: Template, logicalName: string) =>
    Object.entries(t.findResources('AWS::DynamoDB::Table')).find(([id]) =>
      id.startsWith(`${logicalName}Table`),
    )?.[1];
  const targets = (t: Template) =>
    Object.values(t.findResources('AWS::ApplicationAutoScaling::ScalableTarget'));

  it('provisioned: every table and index has capacity and a scalable target for reads and writes, min/max as decided', () => {
    expect(provisionedError).toBeUndefined();
    let expected = 0;
    for (const definition of TABLES) {
      const table = tableNamed(provisioned, definition.logicalName);
      const props = table?.Properties as Json;
      // CloudFormation's default mode: CDK leaves BillingMode out for provisioned tables.
      expect(props.BillingMode ?? 'PROVISIONED').toBe('PROVISIONED');
      const fleetPlan = planFor(FLEET);
      const plan = fleetPlan.tables[definition.logicalName];
      const tableRange = {
        read: scaledRange(plan?.table.read ?? { min: 1, max: 10 }, FLEET, fleetPlan.fleet),
        write: scaledRange(plan?.table.write ?? { min: 1, max: 10 }, FLEET, fleetPlan.fleet),
      };
      expect(props.ProvisionedThroughput).toEqual({
        ReadCapacityUnits: tableRange.read.min,
        WriteCapacityUnits: tableRange.write.min,
      });
      const indexNames = [...definition.globalIndexes, ...retiringIndexes(definition)].map(
        (i) => i.indexName,
      );
      for (const index of props.GlobalSecondaryIndexes as Json[])
        expect(index.ProvisionedThroughput).toMatchObject({
          ReadCapacityUnits: expect.any(Number),
          WriteCapacityUnits: expect.any(Number),
        });
      expected += 2 * (1 + indexNames.length);
      // The table's own read target carries the decided range.
      const tableTargets = targets(provisioned).filter(
        (t) =>
          JSON.stringify(t.Properties.ResourceId).includes(
            provisionedLogicalIdOf(provisioned, definition.logicalName),
          ) && t.Properties.ScalableDimension === 'dynamodb:table:ReadCapacityUnits',
      );
      expect(tableTargets.map((t) => [t.Properties.MinCapacity, t.Properties.MaxCapacity])).toEqual([
        [tableRange.read.min, tableRange.read.max],
      ]);
    }
    expect(targets(provisioned)).toHaveLength(expected);
    const dimensions = new Set(targets(provisioned).map((t) => t.Properties.ScalableDimension));
    expect(dimensions).toEqual(
      new Set([
        'dynamodb:table:ReadCapacityUnits',
        'dynamodb:table:WriteCapacityUnits',
        'dynamodb:index:ReadCapacityUnits',
        'dynamodb:index:WriteCapacityUnits',
      ]),
    );
  });

  it('provisioned: each target tracks its table’s decided utilisation (State 90 %); scaling runs as the service-linked role, no role of ours', () => {
    const policies = Object.values(provisioned.findResources('AWS::ApplicationAutoScaling::ScalingPolicy'));
    expect(policies).toHaveLength(targets(provisioned).length);
    const plan = planFor(FLEET).tables;
    expect(plan.State?.targetPercent).toBe(90);
    // Each table's policies (their ids start with the table's construct id) at its plan's target.
    for (const [id, p] of Object.entries(
      provisioned.findResources('AWS::ApplicationAutoScaling::ScalingPolicy'),
    )) {
      expect(p.Properties.PolicyType).toBe('TargetTrackingScaling');
      const table = Object.keys(plan).find((t) => id.startsWith(`${t}Table`));
      expect(table).toBeDefined();
      const target = plan[table ?? '']?.targetPercent ?? TARGET_UTILISATION_PERCENT;
      expect(target).toBeGreaterThanOrEqual(20);
      expect(target).toBeLessThanOrEqual(90);
      expect(p.Properties.TargetTrackingScalingPolicyConfiguration.TargetValue).toBe(target);
    }
    for (const t of targets(provisioned))
      expect(JSON.stringify(t.Properties.RoleARN)).toContain(
        'aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable',
      );
    const roles = Object.keys(provisioned.findResources('AWS::IAM::Role'));
    const rolesOnDemand = Object.keys(onDemand.findResources('AWS::IAM::Role'));
    expect(roles.length).toBe(rolesOnDemand.length);
  });

  it('provisioned: an index being replaced (all attributes) gets its replacement’s write range × 2', () => {
    const state = TABLES.find((t) => t.logicalName === 'State');
    const replacing = state?.globalIndexes.find((i) => i.replaces !== undefined);
    expect(replacing?.replaces).toBeDefined();
    const range = planFor(FLEET).tables.State?.indexes[replacing?.indexName ?? '']?.write;
    const expected = scaledRange(
      range ?? { min: 1, max: 1 },
      FLEET * RETIRING_INDEX_FACTOR,
      planFor(FLEET).fleet,
    );
    const writeTargets = targets(provisioned).filter(
      (t) =>
        t.Properties.ScalableDimension === 'dynamodb:index:WriteCapacityUnits' &&
        JSON.stringify(t.Properties.ResourceId).includes(`/index/${replacing?.replaces}"`),
    );
    expect(writeTargets.map((t) => [t.Properties.MinCapacity, t.Properties.MaxCapacity])).toEqual([
      [expected.min, expected.max],
    ]);
  });

  it('as decided: State provisioned once the mirror has moved (`-c mirrorTable=own`), on-demand while State still carries the mirror (`dual`, deploy 1)', () => {
    const stateOf = (t: Template) => tableNamed(t, 'State')?.Properties as Json;
    expect(planFor(1_000).tables.State?.mode).toBe('provisioned');
    // CloudFormation's default mode: CDK leaves BillingMode out for provisioned tables.
    expect(stateOf(decidedOwn).BillingMode).toBeUndefined();
    expect(stateOf(decidedOwn).ProvisionedThroughput).toBeDefined();
    expect(stateOf(decidedDual).BillingMode).toBe('PAY_PER_REQUEST');
    expect(stateOf(decidedDual).ProvisionedThroughput).toBeUndefined();
  });

  it('on-demand: pay per request, no capacity, no scaling', () => {
    for (const t of tables(onDemand)) {
      expect(t.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(t.Properties.ProvisionedThroughput).toBeUndefined();
    }
    expect(targets(onDemand)).toHaveLength(0);
  });

  it('refuses a mode it does not know; scales a range per 1,000 sources, never below 1 unit', () => {
    expect(() => capacityModeOf('auto')).toThrow(/onDemand or provisioned/);
    expect(capacityModeOf(undefined)).toBeUndefined();
    expect(scaledRange({ min: 2, max: 9 }, 10_000)).toEqual({ min: 20, max: 90 });
    expect(scaledRange({ min: 2, max: 9 }, 100)).toEqual({ min: 1, max: 1 });
    expect(scaledRange({ min: 20, max: 90 }, 20_000, 10_000)).toEqual({ min: 40, max: 180 });
    // The plan of the largest fleet at or below the stack's; the smallest below every plan.
    expect(planFor(1_000).fleet).toBe(1_000);
    expect(planFor(50_000).fleet).toBe(10_000);
    expect(planFor(200).fleet).toBe(1_000);
    // A stale plan shows: the bench compares what it decided with what is held here.
    const held = planFor(1_000).tables;
    expect(planDifferences(held, held)).toEqual([]);
    // Run-to-run noise in a maximum (within 10 %) is not a difference.
    const base = held.State;
    if (base === undefined) throw new Error('no State plan');
    const noisy = {
      ...held,
      State: {
        ...base,
        table: { ...base.table, read: { ...base.table.read, max: Math.round(base.table.read.max * 0.98) } },
      },
    };
    expect(noisy.State.table.read.max).not.toBe(base.table.read.max);
    expect(planDifferences(held, noisy)).toEqual([]);
    const state = held.State;
    if (state === undefined) throw new Error('no State plan');
    const decided = {
      ...held,
      State: { ...state, mode: 'onDemand' as const, table: { ...state.table, write: { min: 1, max: 2 } } },
    };
    expect(planDifferences(held, decided)).toEqual([
      'State mode provisioned ≠ onDemand',
      `State write ${state.table.write.min}–${state.table.write.max} ≠ 1–2`,
    ]);
  });
});

/**
 * The logical id of the table named `logicalName` (its scalable targets name it in their resource id) —
 * by name, not key: State and Mirror share their key names (issue 28).
 */
function provisionedLogicalIdOf(t: Template, logicalName: string): string {
  const [id] = Object.entries(t.findResources('AWS::DynamoDB::Table')).find(([key]) =>
    key.startsWith(`${logicalName}Table`),
  ) ?? [''];
  return id;
}
