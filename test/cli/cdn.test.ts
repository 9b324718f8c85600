import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStackEnv } from '../../cli/aws';
import { cloudFrontInvalidator } from '../../cli/aws/cdn';
import { parseEnv } from '../../shared/config/env';
import { apiIdHash } from '../../shared/mirror';
import { invalidateAfterTakedown } from '../../shared/takedown';
import { type FakeCloudFormation, startFakeCloudFormation } from '../support/cloudformation';
import { type FakeCloudFront, startFakeCloudFront } from '../support/cloudfront';

/**
 * OPT-2 "at once" with `--aws`: the CloudFront adapter of the takedown's invalidation port, with the
 * real SDK client against a loopback server speaking CloudFront's REST protocol (CreateInvalidation);
 * the distribution comes from the stack output CdnDistributionId (a loopback CloudFormation).
 */

describe('CloudFront invalidation adapter (OPT-2)', () => {
  let cf: FakeCloudFront;
  let client: CloudFrontClient;
  beforeAll(async () => {
    cf = await startFakeCloudFront();
    client = new CloudFrontClient({
      endpoint: cf.url,
      region: 'us-east-1',
      maxAttempts: 1,
      credentials: { accessKeyId: 'TEST', secretAccessKey: 'TEST' },
    });
  });
  afterAll(async () => {
    client.destroy();
    await cf.close();
  });

  it('one CreateInvalidation per batch on the stack distribution, with its paths, count and caller reference', async () => {
    const port = cloudFrontInvalidator('E2ABCDEF123456', client);
    const outcome = await invalidateAfterTakedown(
      port,
      { objects: [{ sourceId: 'ris-a', type: 'paper', id: 'x', bodyId: 'b', lists: ['paper'] }] },
      'takedown-2026-12-02T08:00:00.000Z',
    );
    expect(outcome).toMatchObject({ ok: true, kind: 'cloudfront', batches: 1 });
    expect(cf.invalidations).toHaveLength(1);
    const [sent] = cf.invalidations;
    expect(sent).toMatchObject({
      distributionId: 'E2ABCDEF123456',
      callerReference: 'takedown-2026-12-02T08:00:00.000Z-0',
      quantity: 2,
    });
    expect(sent?.paths).toEqual(outcome.paths);
    expect(sent?.paths).toEqual([
      `/oparl/v1/ris-a/body/${apiIdHash('b')}/paper*`,
      `/oparl/v1/ris-a/paper/${apiIdHash('x')}`,
    ]);
  });

  it('a refusal (403 AccessDenied) comes back as the outcome, never as a throw', async () => {
    cf.refuse = true;
    try {
      const outcome = await invalidateAfterTakedown(
        cloudFrontInvalidator('E2ABCDEF123456', client),
        { objects: [{ sourceId: 'ris-a', type: 'paper', id: 'x' }] },
        'takedown-r',
      );
      expect(outcome).toMatchObject({ ok: false, kind: 'cloudfront', error: { code: 'AccessDenied' } });
      expect(outcome.paths).toHaveLength(1);
    } finally {
      cf.refuse = false;
    }
  });
});

describe('the distribution of `--aws` (stack output CdnDistributionId)', () => {
  let cfn: FakeCloudFormation;
  const base = {
    SourcesTableName: 's',
    StateTableName: 'st',
    DocumentsTableName: 'd',
    MirrorBucketName: 'b',
    SyncQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/q',
  };
  beforeAll(async () => {
    cfn = await startFakeCloudFormation({
      WithCdn: { ...base, CdnDistributionId: 'E2ABCDEF123456' },
      NoCdn: base,
    });
  });
  afterAll(() => cfn.close());

  it('is read into INGESTOR_CDN_DISTRIBUTION_ID when deployed, and optional (a stack without a distribution)', async () => {
    const client = new CloudFormationClient({
      endpoint: cfn.url,
      region: 'eu-central-1',
      credentials: { accessKeyId: 'TEST', secretAccessKey: 'TEST' },
    });
    try {
      const withCdn = await readStackEnv('WithCdn', client);
      expect(parseEnv(withCdn).INGESTOR_CDN_DISTRIBUTION_ID).toBe('E2ABCDEF123456');
      expect((await readStackEnv('NoCdn', client)).INGESTOR_CDN_DISTRIBUTION_ID).toBeUndefined();
    } finally {
      client.destroy();
    }
  });
});
