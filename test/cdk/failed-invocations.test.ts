import { App, type CfnElement, Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestorFunction } from '../../infra/ingestor-function';
import { FUNCTION_ERROR_DATAPOINTS } from '../../infra/observability';
import { IngestorStack } from '../../infra/stack';
import {
  cdkJsonContext,
  NO_BUNDLING,
  removeTempOutdirs,
  synthWithNag,
  TEST_ENV,
  tempOutdir,
} from '../support/cdk';

// Issue 28: the scheduled (asynchronously invoked) functions report failed invocations to one queue with
// one alarm instead of an errors alarm each; the functions invoked synchronously keep theirs.
type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** The planner and the sync only: for the tests that add functions themselves. */
const ONLY_CORE = {
  documentFunctions: false,
  previewFunction: false,
  geoFunction: false,
  broadcastFunction: false,
  mirrorApi: false,
} as const;
const TOPIC = 'arn:aws:sns:eu-central-1:123456789012:oncall';
const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

let stack: IngestorStack;
let template: Template;
let synthError: unknown;
let resources: Resources;

beforeAll(() => {
  // Every function the stack deploys by default (documents, preview, geo, broadcasts, mirror API).
  ({ stack, template, synthError } = synthWithNag(
    'failed-invocations',
    'FailedInvocationsTest',
    {},
    {
      alarmTopicArn: TOPIC,
      upstashRestUrl: 'https://eu1-test-db.upstash.io',
    },
  ));
  resources = template.toJSON().Resources as Resources;
});

afterAll(removeTempOutdirs);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const idOf = (element: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);
const queueId = () => idOf(stack.failedInvocationsQueue);

/** Logical ids of the functions a schedule invokes, read from the template (not from a list here). */
function scheduledFunctionIds(): Set<string> {
  return new Set(
    ofType('AWS::Scheduler::Schedule').map(([, r]) => {
      const arn = (r.Properties.Target as { Arn: { 'Fn::GetAtt': [string, string] } }).Arn;
      return arn['Fn::GetAtt'][0];
    }),
  );
}

/** Logical ids of the functions with an `Errors` alarm of their own. */
function functionsWithErrorsAlarm(): Set<string> {
  return new Set(
    ofType('AWS::CloudWatch::Alarm')
      .filter(([, r]) => r.Properties.MetricName === 'Errors' && r.Properties.Namespace === 'AWS/Lambda')
      .map(([, r]) => {
        const [dimension] = r.Properties.Dimensions as { Name: string; Value: { Ref: string } }[];
        return dimension?.Value.Ref as string;
      }),
  );
}

/** Function logical id → its on-failure destination (from its EventInvokeConfig), if any. */
function onFailureOf(functionId: string): unknown {
  const config = ofType('AWS::Lambda::EventInvokeConfig').find(([, r]) =>
    same(r.Properties.FunctionName, { Ref: functionId }),
  )?.[1];
  return (config?.Properties.DestinationConfig as { OnFailure?: { Destination: unknown } } | undefined)
    ?.OnFailure?.Destination;
}

describe('issue 28: failed scheduled invocations → one queue, one alarm', () => {
  it('the six scheduled functions are the ones a schedule invokes', () => {
    const scheduled = scheduledFunctionIds();
    const expected = [
      stack.planner,
      ...['Files', 'DeletionCheck', 'Photos', 'Geo', 'Broadcasts'].map(
        (name) => stack.node.findChild(name) as IngestorFunction,
      ),
    ].map((f) => idOf(f.fn));
    expect([...scheduled].sort()).toEqual(expected.sort());
  });

  it('every scheduled function sends its failures to FailedInvocations, without retries, and has no errors alarm of its own', () => {
    const withAlarm = functionsWithErrorsAlarm();
    for (const id of scheduledFunctionIds()) {
      expect(onFailureOf(id), id).toEqual({ 'Fn::GetAtt': [queueId(), 'Arn'] });
      const config = ofType('AWS::Lambda::EventInvokeConfig').find(([, r]) =>
        same(r.Properties.FunctionName, { Ref: id }),
      )?.[1];
      expect(config?.Properties.MaximumRetryAttempts, id).toBe(0);
      expect(withAlarm.has(id), id).toBe(false);
    }
  });

  it('the functions invoked synchronously (sync, preview, mirror API) keep their own errors alarm and no destination', () => {
    const scheduled = scheduledFunctionIds();
    const others = ofType('AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => !scheduled.has(id));
    expect(others.sort()).toEqual(
      [stack.sync, stack.node.findChild('Preview') as IngestorFunction, stack.mirrorApi?.function]
        .map((f) => idOf((f as IngestorFunction).fn))
        .sort(),
    );
    const withAlarm = functionsWithErrorsAlarm();
    for (const id of others) {
      expect(withAlarm.has(id), id).toBe(true);
      expect(onFailureOf(id), id).toBeUndefined();
    }
  });

  it('one alarm: records sent to the queue in 2 of 3 five-minute periods, missing data not breaching, notifies on alarm and recovery', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, r]) => r.Properties.Namespace === 'AWS/SQS');
    const onQueue = alarms.filter(([, r]) =>
      same(r.Properties.Dimensions, [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId(), 'QueueName'] } },
      ]),
    );
    expect(onQueue.map(([, r]) => r.Properties)).toEqual([
      expect.objectContaining({
        MetricName: 'NumberOfMessagesSent',
        Statistic: 'Sum',
        Period: 300,
        EvaluationPeriods: 3,
        DatapointsToAlarm: FUNCTION_ERROR_DATAPOINTS,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [TOPIC],
        OKActions: [TOPIC],
      }),
    ]);
    expect(FUNCTION_ERROR_DATAPOINTS).toBe(2);
  });

  it('the stack has 10 alarms: 6 named, 3 errors alarms of the synchronous functions, the API’s invocations', () => {
    const names = ofType('AWS::CloudWatch::Alarm')
      .map(([id]) => id.replace(/^Observability/, '').replace(/[0-9A-F]{8}$/, ''))
      .sort();
    expect(names).toEqual(
      [
        'DeadLetterMessages',
        'FailedInvocations',
        'SourcePausedTooLong',
        'StoreOutages',
        'SourceStarved',
        'SlotStoreFallback',
        'SyncErrors',
        'PreviewErrors',
        'MirrorApiErrors',
        'MirrorApiInvocations',
      ].sort(),
    );
  });

  it('the queue: SQS-managed encryption, TLS only, 14 days’ retention', () => {
    expect(resources[queueId()]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: Duration.days(14).toSeconds(),
    });
    const policies = ofType('AWS::SQS::QueuePolicy').filter(([, r]) =>
      same(r.Properties.Queues, [{ Ref: queueId() }]),
    );
    expect(policies).toHaveLength(1);
    const [[, policy] = ['', { Type: '', Properties: {} }]] = policies;
    const statements = (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
    // Its own policy only denies plain HTTP; it allows no one (the functions' roles are granted in IAM).
    expect(statements.map((s) => s.Effect)).toEqual(['Deny']);
    expect(JSON.stringify(statements)).toContain('aws:SecureTransport');
  });

  it('least privilege: only the scheduled functions’ roles may send to it, and only to it', () => {
    const queueArn = { 'Fn::GetAtt': [queueId(), 'Arn'] };
    const scheduledRoles = new Set(
      ofType('AWS::Lambda::Function')
        .filter(([id]) => scheduledFunctionIds().has(id))
        .map(([, r]) => (r.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]),
    );
    expect(scheduledRoles.size).toBe(6);
    const sendersOfQueue = new Set<string>();
    for (const [, policy] of ofType('AWS::IAM::Policy')) {
      const statements = (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
      for (const s of statements) {
        const actions = asArray(s.Action);
        if (s.Effect !== 'Allow' || !actions.some((a) => a === 'sqs:SendMessage' || a === 'sqs:*')) continue;
        // Never a wildcard resource for sending.
        expect(asArray(s.Resource)).not.toContain('*');
        // (cdk.json's minimizePolicies merges a role's sends into one statement: the planner's also names
        // the sync and wake queues, each by its ARN.)
        if (asArray(s.Resource).some((r) => same(r, queueArn))) {
          for (const role of policy.Properties.Roles as { Ref: string }[]) sendersOfQueue.add(role.Ref);
        }
      }
    }
    expect(sendersOfQueue).toEqual(scheduledRoles);
  });

  it('cdk-nag: the stack with the queue synthesises with no unacknowledged finding', () => {
    expect(synthError).toBeUndefined();
  });

  it('new functions are covered automatically: a later scheduled one gets the destination, a later unscheduled one its own errors alarm', () => {
    const app = new App({
      outdir: tempOutdir('failed-invocations-later'),
      context: { ...cdkJsonContext(), ...NO_BUNDLING },
    });
    const later = new IngestorStack(app, 'FailedInvocationsLater', { env: TEST_ENV, ...ONLY_CORE });
    // Added after construction, as addScheduledFunction's callers do, and a function invoked some other way.
    const scheduled = later.addScheduledFunction('Later', 'functions/planner.ts', { minute: '7' });
    const direct = new IngestorFunction(later, 'Direct', {
      entry: 'functions/planner.ts',
      description: 'invoked synchronously',
      timeout: Duration.minutes(1),
      memorySize: 128,
      environment: {},
    });
    const laterTemplate = Template.fromStack(later);
    const id = (element: { node: { defaultChild?: unknown } }) =>
      later.getLogicalId(element.node.defaultChild as CfnElement);
    const errorsAlarmsOf = (fn: IngestorFunction) =>
      Object.keys(
        laterTemplate.findResources('AWS::CloudWatch::Alarm', {
          Properties: {
            MetricName: 'Errors',
            Dimensions: [{ Name: 'FunctionName', Value: { Ref: id(fn.fn) } }],
          },
        }),
      );
    expect(errorsAlarmsOf(scheduled)).toEqual([]);
    laterTemplate.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: id(scheduled.fn) },
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [id(later.failedInvocationsQueue), 'Arn'] } },
      },
    });
    expect(errorsAlarmsOf(direct)).toHaveLength(1);
    // The planner, scheduled from the start, has none either; the sync has its own.
    expect(errorsAlarmsOf(later.planner)).toEqual([]);
    expect(errorsAlarmsOf(later.sync)).toHaveLength(1);
  });

  it('a schedule on a function without the destination fails synthesis instead of leaving its failures unwatched', () => {
    const app = new App({
      outdir: tempOutdir('failed-invocations-bare'),
      context: { ...cdkJsonContext(), ...NO_BUNDLING },
    });
    const bare = new IngestorStack(app, 'FailedInvocationsBare', { env: TEST_ENV, ...ONLY_CORE });
    const direct = new IngestorFunction(bare, 'Unwatched', {
      entry: 'functions/planner.ts',
      description: 'scheduled without a destination',
      timeout: Duration.minutes(1),
      memorySize: 128,
      environment: {},
    });
    // `schedule` is the stack's one way to put a function on a clock (private; reached here on purpose).
    expect(() =>
      // biome-ignore lint/complexity/useLiteralKeys: a private method, reached on purpose
      bare['schedule']('UnwatchedSchedule', direct, ScheduleExpression.rate(Duration.minutes(5)), {
        description: 'test',
        maxEventAge: Duration.minutes(1),
      }),
    ).toThrow(/FailedInvocations/);
  });
});
