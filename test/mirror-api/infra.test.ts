import type { CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_WAF_RATE_LIMIT,
  changeFeedBus,
  type IngestorStackProps,
  MIRROR_API_INVOCATION_ALARM,
  MIRROR_API_MAX_INSTANCES,
  MIRROR_PREFIXES,
} from '../../infra/stack';
import {
  API_BASE_HEADER,
  API_QUERY_PARAMETERS,
  LIST_MAX_AGE_S,
  OBJECT_MAX_AGE_S,
} from '../../shared/mirror-api/constants';
import { LEGACY_LIST_INDEX, LIST_INDEX } from '../../shared/store/tables';
import { removeTempOutdirs, synthWithNag } from '../support/cdk';

/**
 * Issue 16 in the stack: the OParl API from a read-only function behind CloudFront (cache by query
 * string), and the change feed behind its context flag. Wiring only (no bundling), cdk-nag clean.
 */
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

function synth(context: Record<string, unknown>, props: IngestorStackProps = {}) {
  return synthWithNag('mirror-api', 'Api', { documentFunctions: false, ...props }, context);
}

function statementsOf(template: Template, roleLogicalId: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.values(policies)
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleLogicalId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

describe('CDK: the OParl API over the mirror (issue 16)', () => {
  let withPreview: ReturnType<typeof synth>;
  let alone: ReturnType<typeof synth>;

  beforeAll(() => {
    withPreview = synth({});
    alone = synth({}, { previewFunction: false });
  }, 120_000);
  afterAll(removeTempOutdirs);

  it('synthesises cdk-nag clean, with and without the preview', () => {
    expect(withPreview.synthError).toBeUndefined();
    expect(alone.synthError).toBeUndefined();
  });

  it('State table: the compact list index byList, and no longer the first one, byBodyList (issue 28: deleted by the final rollout step)', () => {
    const { stack, template } = withPreview;
    const table =
      template.findResources('AWS::DynamoDB::Table')[
        stack.getLogicalId(stack.tables.State.node.defaultChild as CfnElement)
      ];
    const indexes = (table?.Properties.GlobalSecondaryIndexes ?? []) as Record<string, unknown>[];
    const byName = (name: string) => indexes.find((i) => i.IndexName === name);
    // Its capacity (on-demand or provisioned, issue 28) is pinned by test/cdk/table-capacity.test.ts.
    const { ProvisionedThroughput: _capacity, ...listIndex } = byName(LIST_INDEX) ?? {};
    expect(listIndex).toEqual({
      IndexName: 'byList',
      KeySchema: [
        { AttributeName: 'lp', KeyType: 'HASH' },
        { AttributeName: 'ls', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['deleted', 'takedown', 'o'] },
    });
    // Issue 28: the first list index is read by nothing and deleted by the final rollout step
    // (test/cdk/stack.test.ts checks the step before it keeps it as deployed).
    expect(byName(LEGACY_LIST_INDEX)).toBeUndefined();
  });

  it('read-only function: reads Sources (Scan), State (GetItem, Query) and only its byList index, and only mirror/ objects — no write, no queue, and of Secrets Manager only GetSecretValue of its id key (issue 25 point 5)', () => {
    const { stack, template } = withPreview;
    const api = stack.mirrorApi;
    if (!api) throw new Error('no mirror API in the stack');
    const roleId = stack.getLogicalId(api.function.role.node.defaultChild as CfnElement);
    const statements = statementsOf(template, roleId);
    const actions = statements.flatMap((s) => asArray(s.Action));
    const state = stack.resolve(stack.tables.State.tableArn);
    const sources = stack.resolve(stack.tables.Sources.tableArn);
    const grantsOn = (resource: unknown) =>
      statements
        .filter((s) => asArray(s.Resource).some((r) => JSON.stringify(r) === JSON.stringify(resource)))
        .flatMap((s) => asArray(s.Action))
        .sort();
    expect(grantsOn(sources)).toEqual(['dynamodb:Scan']);
    expect(grantsOn(state)).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    // Issue 28: the mirror's own table, read alike (the move's phase decides which one it reads).
    expect(grantsOn(stack.resolve(stack.tables.Mirror.tableArn))).toEqual([
      'dynamodb:GetItem',
      'dynamodb:Query',
    ]);
    const indexArns = statements
      .flatMap((s) => asArray(s.Resource))
      .filter((r) => JSON.stringify(r).includes('/index/'));
    // Its byList index alone — on State and on the Mirror table while the move's dual phase reads State
    // (issue 28, `-c mirrorTable=dual`, the default until deploy 2).
    expect(indexArns).toHaveLength(2);
    for (const arn of indexArns) expect(JSON.stringify(arn)).toContain(`/index/${LIST_INDEX}`);
    // Issue 25 point 5: its ids are keyed — it reads that one secret, nothing else of Secrets Manager.
    const secretStatements = statements.filter((s) =>
      asArray(s.Action).some((a) => String(a).startsWith('secretsmanager:')),
    );
    expect(secretStatements.map((s) => [asArray(s.Action), s.Resource])).toEqual([
      [['secretsmanager:GetSecretValue'], stack.resolve(stack.apiIdKey.secretArn)],
    ]);
    // Its own log group is the one thing it writes (IngestorFunction).
    for (const action of actions.filter(
      (a) => !a.startsWith('logs:') && a !== 'secretsmanager:GetSecretValue',
    )) {
      expect(action).not.toMatch(/Put|Update|Delete|BatchWrite|sqs:|secretsmanager:|events:|\*/);
    }
    const objectResources = statements
      .filter((s) => asArray(s.Action).includes('s3:GetObject'))
      .flatMap((s) => asArray(s.Resource));
    expect(JSON.stringify(objectResources)).toContain(`/${MIRROR_PREFIXES.mirror}*`);
    expect(JSON.stringify(objectResources)).not.toMatch(/files\/|text\/|robots\//);
    const fnId = stack.getLogicalId(api.function.fn.node.defaultChild as CfnElement);
    const vars = Object.keys(
      template.findResources('AWS::Lambda::Function')[fnId]?.Properties.Environment.Variables,
    );
    expect(vars.sort()).toEqual([
      'BUCKET',
      'INGESTOR_API_DOCUMENTS',
      'INGESTOR_API_ID_KEY_SECRET_ARN',
      'MIRROR_TABLE',
      'MIRROR_TABLE_PHASE',
      'NODE_OPTIONS',
      'SOURCES_TABLE',
      'STATE_TABLE',
    ]);
  });

  it('behind CloudFront only (AWS_IAM Function URL with origin access control), cached by path and the query strings the API reads alone (issue 25 point 4), TTL from the API', () => {
    const { template } = alone;
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM', InvokeMode: 'BUFFERED' });
    template.hasResourceProperties('AWS::CloudFront::CachePolicy', {
      CachePolicyConfig: Match.objectLike({
        MinTTL: 0,
        DefaultTTL: 0,
        MaxTTL: Math.max(OBJECT_MAX_AGE_S, LIST_MAX_AGE_S),
        ParametersInCacheKeyAndForwardedToOrigin: Match.objectLike({
          QueryStringsConfig: { QueryStringBehavior: 'whitelist', QueryStrings: [...API_QUERY_PARAMETERS] },
          HeadersConfig: { HeaderBehavior: 'none' },
          CookiesConfig: { CookieBehavior: 'none' },
        }),
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::OriginRequestPolicy', {
      OriginRequestPolicyConfig: Match.objectLike({
        HeadersConfig: { HeaderBehavior: 'whitelist', Headers: [API_BASE_HEADER] },
        QueryStringsConfig: { QueryStringBehavior: 'whitelist', QueryStrings: [...API_QUERY_PARAMETERS] },
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: Match.stringLikeRegexp(API_BASE_HEADER),
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    expect(Object.keys(template.toJSON().Outputs)).toContain('MirrorApiSystemUrl');
  });

  it('with the preview: /oparl/* is a behaviour of the preview distribution, so File.accessUrl (/documents/…) is on the same domain', () => {
    const { template } = withPreview;
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        CacheBehaviors: [
          Match.objectLike({
            PathPattern: '/oparl/v1/*',
            AllowedMethods: ['GET', 'HEAD'],
            Compress: true,
            FunctionAssociations: [Match.objectLike({ EventType: 'viewer-request' })],
          }),
        ],
      }),
    });
  });

  it('File links: to /documents/… on the same domain with the preview, the origin’s own without it (no dead route)', () => {
    const documentsEnv = ({ stack, template }: ReturnType<typeof synth>) => {
      const fn = stack.mirrorApi?.function.fn;
      if (!fn) throw new Error('no mirror API in the stack');
      const id = stack.getLogicalId(fn.node.defaultChild as CfnElement);
      return template.toJSON().Resources[id].Properties.Environment.Variables.INGESTOR_API_DOCUMENTS;
    };
    expect(documentsEnv(withPreview)).toBe('true');
    expect(documentsEnv(alone)).toBe('false');
  });

  it('its errors are alarmed on like every ingestor function', () => {
    const { stack, template } = alone;
    const fnId = stack.getLogicalId(stack.mirrorApi?.function.fn.node.defaultChild as CfnElement);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
    });
  });

  it('issue 25 point 4: an alarm on its invocations, not only its errors', () => {
    const { stack, template } = alone;
    const fnId = stack.getLogicalId(stack.mirrorApi?.function.fn.node.defaultChild as CfnElement);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Invocations',
      Namespace: 'AWS/Lambda',
      Statistic: 'Sum',
      Period: 300,
      Threshold: MIRROR_API_INVOCATION_ALARM,
      ComparisonOperator: 'GreaterThanThreshold',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
    });
  });

  it('issue 25 point 4: its own concurrency bound with reserved concurrency, the sync’s SQS maximum kept', () => {
    const { stack, template, synthError } = synth({}, { previewFunction: false, reservedConcurrency: true });
    expect(synthError).toBeUndefined();
    const fnId = stack.getLogicalId(stack.mirrorApi?.function.fn.node.defaultChild as CfnElement);
    expect(
      template.findResources('AWS::Lambda::Function')[fnId]?.Properties.ReservedConcurrentExecutions,
    ).toBe(MIRROR_API_MAX_INSTANCES);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: stack.syncMaxConcurrency },
    });
  });

  it('issue 25 point 4: no WAF unless asked; -c apiWaf=true puts a rate-based rule per address on the API distribution, its web ACL in us-east-1 (a companion stack from another region), cdk-nag clean', () => {
    alone.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(alone.stack.apiWebAcl).toBeUndefined();
    const rule = {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Action: { Block: {} },
          Statement: {
            RateBasedStatement: {
              Limit: API_WAF_RATE_LIMIT,
              AggregateKeyType: 'IP',
              EvaluationWindowSec: 300,
            },
          },
        }),
      ],
    };
    // From eu-central-1: the ACL in a companion stack in us-east-1, read across regions.
    const away = synth({ apiWaf: 'true' }, { previewFunction: false });
    expect(away.synthError).toBeUndefined();
    const home = away.stack.apiWebAcl?.stack;
    expect(home?.region).toBe('us-east-1');
    expect(home).not.toBe(away.stack);
    away.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    Template.fromStack(home as Stack).hasResourceProperties('AWS::WAFv2::WebACL', rule);
    away.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ WebACLId: Match.anyValue() }),
    });
    // In us-east-1: in the stack itself, its ARN on the distribution.
    const east = synthWithNag(
      'mirror-api-east',
      'ApiEast',
      {
        documentFunctions: false,
        previewFunction: false,
        env: { account: '123456789012', region: 'us-east-1' },
      },
      { apiWaf: 'true', apiWafRateLimit: '500' },
    );
    expect(east.synthError).toBeUndefined();
    expect(east.stack.apiWebAcl?.stack).toBe(east.stack);
    east.template.hasResourceProperties('AWS::WAFv2::WebACL', {
      ...rule,
      Rules: [Match.objectLike({ Statement: { RateBasedStatement: Match.objectLike({ Limit: 500 }) } })],
    });
    east.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ WebACLId: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } }),
    });
    expect(() => synth({ apiWaf: 'yes' }, { previewFunction: false })).toThrow(/apiWaf/);
  });

  it('-c mirrorApi=false leaves it out', () => {
    const off = synth({ mirrorApi: 'false' }, { previewFunction: false });
    expect(off.stack.mirrorApi).toBeUndefined();
    off.template.resourceCountIs('AWS::CloudFront::Distribution', 0);
  });
});

describe('CDK: the change feed behind its context flag (issue 16)', () => {
  afterAll(removeTempOutdirs);

  it('off by default: no bus variable, no PutEvents grant', () => {
    const { template } = synth({ mirrorApi: 'false' }, { previewFunction: false });
    expect(JSON.stringify(template.toJSON())).not.toContain('events:PutEvents');
    expect(JSON.stringify(template.toJSON())).not.toContain('INGESTOR_CHANGE_BUS');
  });

  it('-c changeFeed=true: the sync publishes on the default bus and the planner drains the outbox, PutEvents on that bus only, the bus an output for ingestor --aws', () => {
    const { stack, template, synthError } = synth(
      { mirrorApi: 'false', changeFeed: 'true' },
      { previewFunction: false },
    );
    expect(synthError).toBeUndefined();
    template.resourceCountIs('AWS::Events::EventBus', 0);
    // The sync publishes; the planner drains the outbox while no sync runs.
    for (const fn of [stack.sync, stack.planner]) {
      const fnId = stack.getLogicalId(fn.fn.node.defaultChild as CfnElement);
      const variables =
        template.findResources('AWS::Lambda::Function')[fnId]?.Properties.Environment.Variables;
      expect(variables.INGESTOR_CHANGE_BUS).toBe('default');
      const roleId = stack.getLogicalId(fn.role.node.defaultChild as CfnElement);
      const put = statementsOf(template, roleId).filter((s) =>
        asArray(s.Action).includes('events:PutEvents'),
      );
      expect(put).toHaveLength(1);
      expect(JSON.stringify(put[0]?.Resource)).toContain('event-bus/default');
    }
    expect(template.toJSON().Outputs.ChangeBusName.Value).toBe('default');
  });

  it('-c changeFeed=<name>: a bus of that name in the stack', () => {
    const { template } = synth(
      { mirrorApi: 'false', changeFeed: 'council-changes' },
      { previewFunction: false },
    );
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'council-changes' });
  });

  it('the flag value: true/default → default bus, false/absent → off, an invalid name refused at synth', () => {
    expect(changeFeedBus(undefined)).toBeUndefined();
    expect(changeFeedBus('false')).toBeUndefined();
    expect(changeFeedBus(true)).toBe('default');
    expect(changeFeedBus('default')).toBe('default');
    expect(changeFeedBus('council-changes')).toBe('council-changes');
    expect(() => changeFeedBus('bad name!')).toThrow(/changeFeed/);
  });
});
