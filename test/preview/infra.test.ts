import { App, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestorFunction } from '../../infra/ingestor-function';
import { IngestorStack, PREVIEW_MAX_INSTANCES } from '../../infra/stack';
import { PREVIEW_DOWNLOAD_PARAM, PREVIEW_STORED_REDIRECT_MAX_AGE_S } from '../../shared/preview/constants';
import {
  cdkJsonContext,
  NO_BUNDLING,
  removeTempOutdirs,
  synthWithNag,
  TEST_ENV,
  tempOutdir,
} from '../support/cdk';

/**
 * The preview function in the stack (issue 9): CloudFront before a Function URL streaming responses, counted
 * as a fetcher (RATE-7), grants limited to what PRV-1…PRV-4 need, cdk-nag clean. Wiring only.
 */
describe('CDK: preview function', () => {
  let stack: IngestorStack;
  let template: Template;
  let synthError: unknown;

  beforeAll(() => {
    ({ stack, template, synthError } = synthWithNag(
      'preview',
      'Preview',
      { documentFunctions: false, geoFunction: false, broadcastFunction: false },
      { previewFunction: true },
    ));
  }, 120_000);
  afterAll(removeTempOutdirs);

  const fn = () => stack.node.findChild('Preview') as IngestorFunction;

  it('PRV: the Function URL (RESPONSE_STREAM) admits only CloudFront (AWS_IAM + origin access control)', () => {
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'AWS_IAM',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: Match.anyValue(),
    });
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 'lambda',
        SigningBehavior: 'always',
      }),
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      Principal: 'cloudfront.amazonaws.com',
    });
    const id = stack.getLogicalId(fn().fn.node.defaultChild as CfnElement);
    const props = template.findResources('AWS::Lambda::Function')[id]?.Properties;
    // No reservation by default (a new account refuses any); RATE-7 still counts the intended bound:
    // the sync's instances (SCH-5 slots ÷ the worker's runs, at least 2) + PREVIEW_MAX_INSTANCES preview
    // instances may fetch at once.
    expect(props?.ReservedConcurrentExecutions).toBeUndefined();
    expect(props?.Environment.Variables.INGESTOR_MAX_INSTANCES).toBe(
      String(stack.syncMaxConcurrency + PREVIEW_MAX_INSTANCES),
    );
  });

  /** The preview's own resources by construct id (the stack holds the API's policies too). */
  const logicalIdOf = (id: string) =>
    stack.getLogicalId(stack.node.findChild(id).node.defaultChild as CfnElement);
  const properties = (id: string) => template.toJSON().Resources[logicalIdOf(id)]?.Properties;

  it('PRV: CloudFront in front — cache key the path and `download` alone (OParl File.downloadUrl), TTL from the origin up to the stored-copy redirect age, viewer address forwarded (PRV-2)', () => {
    // The view and the download of a document are cached apart (a cached inline redirect never answers
    // `?download=1`); no other parameter reaches the cache key or the function.
    const onlyDownload = { QueryStringBehavior: 'whitelist', QueryStrings: [PREVIEW_DOWNLOAD_PARAM] };
    expect(PREVIEW_DOWNLOAD_PARAM).toBe('download');
    expect(properties('PreviewCachePolicy')?.CachePolicyConfig).toMatchObject({
      DefaultTTL: 0,
      MinTTL: 0,
      MaxTTL: PREVIEW_STORED_REDIRECT_MAX_AGE_S,
      ParametersInCacheKeyAndForwardedToOrigin: {
        HeadersConfig: { HeaderBehavior: 'none' },
        CookiesConfig: { CookieBehavior: 'none' },
      },
    });
    expect(properties('PreviewOriginRequestPolicy')?.OriginRequestPolicyConfig).toMatchObject({
      HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['CloudFront-Viewer-Address'] },
      CookiesConfig: { CookieBehavior: 'none' },
    });
    expect(
      properties('PreviewCachePolicy')?.CachePolicyConfig.ParametersInCacheKeyAndForwardedToOrigin
        .QueryStringsConfig,
    ).toEqual(onlyDownload);
    expect(properties('PreviewOriginRequestPolicy')?.OriginRequestPolicyConfig.QueryStringsConfig).toEqual(
      onlyDownload,
    );
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          ViewerProtocolPolicy: 'redirect-to-https',
          AllowedMethods: ['GET', 'HEAD'],
          CachePolicyId: { Ref: logicalIdOf('PreviewCachePolicy') },
          OriginRequestPolicyId: { Ref: logicalIdOf('PreviewOriginRequestPolicy') },
        }),
      }),
    });
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(JSON.stringify(outputs.PreviewUrl?.Value)).toContain('DomainName');
  });

  it('with -c reservedConcurrency=true the preview reserves PREVIEW_MAX_INSTANCES', () => {
    const app = new App({
      outdir: tempOutdir('preview-reserved'),
      context: { ...cdkJsonContext(), ...NO_BUNDLING },
    });
    const reserved = new IngestorStack(app, 'Reserved', {
      env: TEST_ENV,
      documentFunctions: false,
      geoFunction: false,
      broadcastFunction: false,
      reservedConcurrency: true,
    });
    const t = Template.fromStack(reserved);
    t.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: PREVIEW_MAX_INSTANCES });
    t.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 1 });
  });

  it('cdk-nag AwsSolutions: no unacknowledged finding', () => {
    expect(synthError).toBeUndefined();
  });
});
