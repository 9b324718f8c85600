import type { CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestorStack } from '../../infra/stack';
import {
  DECIDED_SYNC_PROVISIONED,
  SYNC_ALIAS_NAME,
  syncProvisionedFor,
  syncProvisionedOf,
} from '../../infra/sync-provisioned';
import { removeTempOutdirs, synthWithNag } from '../support/cdk';

/**
 * Issue 28: the sync workers on provisioned concurrency — an alias holding `-c syncProvisioned` (default:
 * the decided count for `fleetSources`) instances, invoked by the wake queue's event source. Wiring only
 * (no bundling), with cdk-nag.
 */
describe('sync on provisioned concurrency (issue 28)', () => {
  // A 1,000-source fleet as the sync-trigger test: 91 slots, 22.3 runs in flight → event source cap 2.
  const props = {
    documentFunctions: false,
    previewFunction: false,
    geoFunction: false,
    broadcastFunction: false,
    mirrorApi: false,
    maxConcurrentSyncs: 91,
    syncRunsInFlight: 22.3,
  };
  let stack: IngestorStack;
  let template: Template;
  let synthError: unknown;
  let off: { stack: IngestorStack; template: Template; synthError: unknown };

  beforeAll(() => {
    ({ stack, template, synthError } = synthWithNag('sync-pc', 'SyncPc', props, { syncTrigger: 'planner' }));
    off = synthWithNag('sync-pc-off', 'SyncPcOff', props, { syncTrigger: 'planner', syncProvisioned: 0 });
  });
  afterAll(removeTempOutdirs);

  /** The sync role's policy statements, resolved (their logical ids differ only by the stack's name). */
  const syncStatements = (s: IngestorStack, t: Template) => {
    const role = (s.resolve(s.sync.role.roleArn) as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    return Object.values(t.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(role))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as unknown[]);
  };

  it('synthesises with every nag finding answered, the decided count for 1,000 sources by default', () => {
    expect(synthError).toBeUndefined();
    const decided = DECIDED_SYNC_PROVISIONED.find((p) => p.fleet === 1_000)?.instances;
    expect(decided).toBeGreaterThan(0);
    expect(stack.syncProvisioned).toBe(decided);
    template.hasResourceProperties('AWS::Lambda::Alias', {
      Name: SYNC_ALIAS_NAME,
      FunctionName: stack.resolve(stack.sync.fn.functionName),
      ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: decided },
    });
  });

  it("the wake queue's event source invokes the alias, not the function's $LATEST", () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mapping?.Properties.EventSourceArn).toEqual(stack.resolve(stack.syncWakeQueue?.queueArn));
    // CDK names the alias as `<function name>:live`, the name taken from the alias's ARN (its Ref): the
    // invocations land on the alias's provisioned instances.
    const alias = stack.syncAlias?.node.defaultChild as CfnElement;
    const name = JSON.stringify(mapping?.Properties.FunctionName);
    expect(name).toContain(JSON.stringify({ Ref: stack.getLogicalId(alias) }));
    expect(name).toContain(`":${SYNC_ALIAS_NAME}"`);
    expect(name).not.toContain(JSON.stringify(stack.resolve(stack.sync.fn.functionName)));
  });

  it('0 = off: no alias, no version, the mapping invokes the function itself', () => {
    expect(off.synthError).toBeUndefined();
    expect(off.stack.syncProvisioned).toBe(0);
    expect(off.stack.syncAlias).toBeUndefined();
    off.template.resourceCountIs('AWS::Lambda::Alias', 0);
    off.template.resourceCountIs('AWS::Lambda::Version', 0);
    const [mapping] = Object.values(off.template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mapping?.Properties.FunctionName).toEqual(off.stack.resolve(off.stack.sync.fn.functionName));
  });

  it("least privilege unchanged: the sync role's statements are the same with and without the alias", () => {
    const on = JSON.stringify(syncStatements(stack, template)).replaceAll('SyncPc', 'X');
    const without = JSON.stringify(syncStatements(off.stack, off.template)).replaceAll('SyncPcOff', 'X');
    expect(on).toBe(without);
    expect(on).not.toContain('lambda:InvokeFunction');
  });

  it('the event source trigger provisions none unless asked', () => {
    const es = synthWithNag('sync-pc-es', 'SyncPcEs', props, { syncTrigger: 'eventSource' });
    expect(es.stack.syncProvisioned).toBe(0);
    es.template.resourceCountIs('AWS::Lambda::Alias', 0);
  });

  it('refuses a count above the event source cap, a fraction or a word, saying why', () => {
    const refused = (value: unknown) => () =>
      synthWithNag('sync-pc-bad', 'Bad', props, { syncTrigger: 'planner', syncProvisioned: value });
    expect(refused(3)).toThrow(
      /syncProvisioned must be a whole number from 0 \(none\) to the sync event source's maximum concurrency 2, got "3"/,
    );
    expect(refused('1.5')).toThrow(/syncProvisioned must be a whole number/);
    expect(refused('one')).toThrow(/syncProvisioned must be a whole number/);
    expect(refused(-1)).toThrow(/syncProvisioned must be a whole number/);
  });
});

describe('the decided count per fleet (issue 28, pure)', () => {
  it("the plan of the largest fleet at or below the stack's, else the smallest's", () => {
    expect(syncProvisionedFor(500)).toBe(syncProvisionedFor(1_000));
    expect(syncProvisionedFor(9_999)).toBe(syncProvisionedFor(1_000));
    expect(syncProvisionedFor(10_000)).toBe(
      DECIDED_SYNC_PROVISIONED.find((p) => p.fleet === 10_000)?.instances,
    );
    expect(syncProvisionedFor(250_000)).toBe(
      DECIDED_SYNC_PROVISIONED.find((p) => p.fleet === 100_000)?.instances,
    );
  });

  it("the default never exceeds the event source's cap; an explicit value above it is refused", () => {
    expect(syncProvisionedOf({ raw: undefined, fleetSources: 100_000, maxConcurrency: 2 })).toBe(2);
    expect(syncProvisionedOf({ raw: '0', fleetSources: 100_000, maxConcurrency: 2 })).toBe(0);
    expect(() => syncProvisionedOf({ raw: 3, fleetSources: 1_000, maxConcurrency: 2 })).toThrow(
      /maximum concurrency 2, got "3"/,
    );
  });
});
