import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { afterAll, describe, expect, it } from 'vitest';
import { grantTable, grantTableReads } from '../../infra/grants';
import { IngestorStack, mirrorTablePhaseOf, stateListIndexDropped } from '../../infra/stack';
import { LIST_INDEX, MIRROR_TABLE, STATE_TABLE } from '../../shared/store/tables';
import { cdkJsonContext, NO_BUNDLING, removeTempOutdirs, TEST_ENV, tempOutdir } from '../support/cdk';

/**
 * Issue 28: the mirror's object index in a table of its own — no PITR, Standard-IA — and the phase of
 * its move (`-c mirrorTable=dual|own`) in every function that touches it; least privilege: only the
 * functions that read or write mirror items are granted the table, each with exactly what it does.
 */
type Json = Record<string, unknown>;
const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

function synth(context: Record<string, unknown> = {}): { stack: IngestorStack; template: Template } {
  const app = new App({
    outdir: tempOutdir('mirror-table'),
    context: { ...cdkJsonContext(), ...NO_BUNDLING, ...context },
  });
  const stack = new IngestorStack(app, 'IngestorMirrorTable', {
    env: TEST_ENV,
    upstashRestUrl: 'https://eu1-test-db.upstash.io',
    upstashSecretName: 'test/upstash-token',
    userAgent: 'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; ops@example.org)',
  });
  return { stack, template: Template.fromStack(stack) };
}
afterAll(removeTempOutdirs);

const everything = synth();

/** Each function (by its construct id) with its environment and the actions its role has on `arn`. */
function functionsOn(t: Template, stack: IngestorStack, resource: (arn: string) => unknown) {
  const policies = Object.values(t.findResources('AWS::IAM::Policy'));
  const arn = stack.resolve(stack.tables.Mirror.tableArn);
  return Object.entries(t.findResources('AWS::Lambda::Function'))
    .filter(([, fn]) => (fn.Properties as Json).Handler !== undefined)
    .map(([id, fn]) => {
      const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const statements = policies
        .filter((p) =>
          asArray(p.Properties.Roles).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: role })),
        )
        .flatMap(
          (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
        );
      const target = JSON.stringify(resource(arn as string));
      const actions = statements
        .filter((s) => asArray(s.Resource).some((r) => JSON.stringify(r) === target))
        .flatMap((s) => asArray(s.Action));
      return { id, env: ((fn.Properties.Environment as Json | undefined)?.Variables ?? {}) as Json, actions };
    });
}

const named = (id: string, prefix: string) => id.startsWith(prefix);

describe('the Mirror table (issue 28)', () => {
  it('no PITR, Standard-IA, on demand, retained with deletion protection, keys and byList as defined', () => {
    const { stack, template } = everything;
    const id = stack.getLogicalId(stack.tables.Mirror.node.defaultChild as never);
    const table = template.findResources('AWS::DynamoDB::Table')[id];
    const props = table?.Properties as Json;
    expect(props.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: false });
    expect(props.TableClass).toBe('STANDARD_INFREQUENT_ACCESS');
    expect(props.BillingMode).toBe('PAY_PER_REQUEST');
    expect(props.DeletionProtectionEnabled).toBe(true);
    expect(table?.DeletionPolicy).toBe('Retain');
    expect(props.KeySchema).toEqual([
      { AttributeName: MIRROR_TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: MIRROR_TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    expect((props.GlobalSecondaryIndexes as Json[]).map((i) => i.IndexName)).toEqual([LIST_INDEX]);
    // The tables that cannot be rebuilt keep PITR and Standard.
    for (const name of ['Sources', 'State', 'Documents'] as const) {
      const other = template.findResources('AWS::DynamoDB::Table')[
        stack.getLogicalId(stack.tables[name].node.defaultChild as never)
      ]?.Properties as Json;
      expect(other.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(other.TableClass).toBeUndefined();
    }
  });

  it('least privilege: the sync reads and writes it; the API, preview and broadcasts read only what they read; no other function is granted it', () => {
    const { stack, template } = everything;
    const onTable = functionsOn(template, stack, (arn) => arn);
    const onList = functionsOn(template, stack, (arn) => ({
      'Fn::Join': ['', [arn, `/index/${LIST_INDEX}`]],
    }));
    const granted = onTable.filter((f) => f.actions.length > 0).map((f) => f.id);
    expect(
      granted.every((id) => ['Sync', 'MirrorApi', 'Preview', 'Broadcasts'].some((p) => named(id, p))),
    ).toBe(true);
    const actions = (prefix: string) => onTable.find((f) => named(f.id, prefix))?.actions.sort() ?? [];
    expect(actions('Sync')).toEqual(
      expect.arrayContaining([
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      ]),
    );
    expect(actions('MirrorApi')).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    expect(actions('Preview')).toEqual(['dynamodb:GetItem']);
    expect(actions('Broadcasts')).toEqual(['dynamodb:Query']);
    for (const other of ['Planner', 'Files', 'DeletionCheck', 'Photos', 'Geo'])
      expect(onTable.filter((f) => named(f.id, other)).flatMap((f) => f.actions)).toEqual([]);
    // The list index: the API pages it, the sync's recount reads it; nobody else.
    const listReaders = onList.filter((f) => f.actions.length > 0).map((f) => f.id);
    expect(listReaders.some((id) => named(id, 'MirrorApi'))).toBe(true);
    expect(listReaders.every((id) => named(id, 'MirrorApi') || named(id, 'Sync'))).toBe(true);
  });

  it('the phase: `dual` by default (safe for a stack whose items are in State), `own` when asked, in the env of every function that touches the items and in the outputs', () => {
    const { stack, template } = everything;
    expect(stack.mirrorTablePhase).toBe('dual');
    const fns = functionsOn(template, stack, (arn) => arn).filter((f) => f.actions.length > 0);
    expect(fns.length).toBeGreaterThanOrEqual(4);
    for (const fn of fns) {
      expect(fn.env.MIRROR_TABLE_PHASE).toBe('dual');
      expect(fn.env.MIRROR_TABLE).toEqual(stack.resolve(stack.tables.Mirror.tableName));
    }
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.MirrorTablePhase?.Value).toBe('dual');
    expect(outputs.MirrorTableName?.Value).toEqual(stack.resolve(stack.tables.Mirror.tableName));

    const own = synth({ mirrorTable: 'own' });
    expect(own.stack.mirrorTablePhase).toBe('own');
    const ownFns = functionsOn(own.template, own.stack, (arn) => arn).filter((f) => f.actions.length > 0);
    for (const fn of ownFns) expect(fn.env.MIRROR_TABLE_PHASE).toBe('own');
  });

  it('`ownDropped` (after `--delete-old`): `own` to every function, State without its empty `byList` index; the Mirror table keeps its own', () => {
    const indexesOf = (t: Template, stack: IngestorStack, name: 'State' | 'Mirror') => {
      const id = stack.getLogicalId(stack.tables[name].node.defaultChild as never);
      const props = (t.findResources('AWS::DynamoDB::Table')[id]?.Properties ?? {}) as Json;
      return ((props.GlobalSecondaryIndexes ?? []) as Json[]).map((i) => i.IndexName);
    };
    const dropped = synth({ mirrorTable: 'ownDropped' });
    expect(dropped.stack.mirrorTablePhase).toBe('own');
    expect(mirrorTablePhaseOf(new App({ context: { mirrorTable: 'ownDropped' } }))).toBe('own');
    expect(stateListIndexDropped(new App({ context: { mirrorTable: 'ownDropped' } }))).toBe(true);
    expect(stateListIndexDropped(new App({ context: { mirrorTable: 'own' } }))).toBe(false);
    const outputs = dropped.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.MirrorTablePhase?.Value).toBe('own');
    for (const fn of functionsOn(dropped.template, dropped.stack, (arn) => arn).filter(
      (f) => f.actions.length > 0,
    ))
      expect(fn.env.MIRROR_TABLE_PHASE).toBe('own');
    // State loses exactly its list index (one index deleted: one update); `own` and `dual` keep it.
    const before = indexesOf(everything.template, everything.stack, 'State');
    expect(before).toContain(LIST_INDEX);
    expect(indexesOf(dropped.template, dropped.stack, 'State')).toEqual(
      before.filter((i) => i !== LIST_INDEX),
    );
    expect(indexesOf(dropped.template, dropped.stack, 'Mirror')).toEqual([LIST_INDEX]);
  });

  it("least privilege in every mode: no policy names an index its table does not have (`ownDropped`: State's `byList` is gone)", () => {
    const indexArn = /\{"Fn::GetAtt":\["([^"]+)","Arn"\]\},"\/index\/([^"]+)"/g;
    for (const mode of ['dual', 'own', 'ownDropped']) {
      const { template } = mode === 'dual' ? everything : synth({ mirrorTable: mode });
      const tables = template.findResources('AWS::DynamoDB::Table');
      const named = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
        [...JSON.stringify(policy.Properties.PolicyDocument).matchAll(indexArn)].map(([, table, index]) => ({
          table,
          index,
        })),
      );
      // The indexes that exist are still granted: the Mirror table's list index (the API's pages).
      const mirror = everything.stack.getLogicalId(everything.stack.tables.Mirror.node.defaultChild as never);
      expect(named, mode).toContainEqual({ table: mirror, index: LIST_INDEX });
      const missing = named.filter(({ table, index }) => {
        const props = (tables[table as string]?.Properties ?? {}) as Json;
        return !((props.GlobalSecondaryIndexes ?? []) as Json[]).some((i) => i.IndexName === index);
      });
      expect(missing, mode).toEqual([]);
    }
  });

  it('grants: an index the definition has but the table lacks is never granted, and naming it is refused', () => {
    const stack = new Stack(new App(), 'Grants');
    const table = new Table(stack, 'State', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
    });
    const kept = STATE_TABLE.globalIndexes.find((index) => index.indexName !== LIST_INDEX);
    if (!kept) throw new Error('State has no index besides byList');
    table.addGlobalSecondaryIndex({
      indexName: kept.indexName,
      partitionKey: { name: kept.partitionKey, type: AttributeType.STRING },
      sortKey: { name: kept.sortKey, type: AttributeType.STRING },
    });
    const role = new Role(stack, 'Reader', { assumedBy: new AccountRootPrincipal() });
    grantTable(role, table, STATE_TABLE, 'read');
    expect(() =>
      grantTableReads(role, table, STATE_TABLE, { actions: ['dynamodb:Query'], indexes: [LIST_INDEX] }),
    ).toThrow(`table State has no index ${LIST_INDEX}`);
    const document = JSON.stringify(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
    expect(document).toContain(`/index/${kept.indexName}`);
    expect(document).not.toContain(`/index/${LIST_INDEX}`);
  });

  it('refuses any other phase (`state` included: this stack has the table and keeps it written)', () => {
    for (const value of ['state', 'both', ''])
      expect(() => mirrorTablePhaseOf(new App({ context: { mirrorTable: value } }))).toThrow(/mirrorTable/);
  });
});
