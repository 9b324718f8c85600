import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STACK_NAME } from '../../shared/config';
import { listBodies } from '../../shared/onboarding';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { lastJson, spawnCli } from '../support/cli-process';
import { type FakeCloudFormation, startFakeCloudFormation } from '../support/cloudformation';
import { type FakeCloudFront, startFakeCloudFront } from '../support/cloudfront';
import { seedListedBody } from '../support/mirror-api';
import { type FakeSecretsManager, startFakeSecretsManager } from '../support/secrets-manager';

/**
 * OPT-2 "at once" with `--aws`: `ingestor tombstone --aws` (the real CLI process) takes the body down in
 * the deployed tables (dynalite under the output names), then invalidates its paths by CreateInvalidation
 * on the distribution the stack output CdnDistributionId names — a loopback server speaking CloudFront's
 * REST protocol (`AWS_ENDPOINT_URL_CLOUDFRONT`), outputs from a loopback CloudFormation. A refusal
 * (403) leaves the takedown standing, warns and exits 1; the same command again invalidates again.
 */
const DEPLOYED = {
  SourcesTableName: 'MandariInv-Sources-XYZ',
  StateTableName: 'MandariInv-State-XYZ',
  DocumentsTableName: 'MandariInv-Documents-XYZ',
  MirrorBucketName: 'mandariinv-mirror-xyz',
  SyncQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/MandariInv-Sync-XYZ',
  ApiIdKeySecretArn: 'arn:aws:secretsmanager:eu-central-1:111122223333:secret:MandariInv-ApiIdKey-AbCd',
  CdnDistributionId: 'E2INVTEST12345',
};
const SOURCE = 'stadt-cdn';
const BODY = 'https://ris.stadt-cdn.de/oparl/body/1';

describe('ingestor tombstone --aws invalidates CloudFront (OPT-2)', () => {
  let cfn: FakeCloudFormation;
  let cf: FakeCloudFront;
  let sm: FakeSecretsManager;
  let aws: AwsTestbed;
  let slug: string;

  beforeAll(async () => {
    sm = await startFakeSecretsManager(
      DEPLOYED.ApiIdKeySecretArn,
      'Kq3Wz8Xr1Tv6Nb4Mc9Ld2Fh7Gj5Hs0Pa3Ue8Yo1Iw6Ek4Rt9Sm2Zn7Xc5Vb0Qd',
    );
    cfn = await startFakeCloudFormation({ [DEFAULT_STACK_NAME]: DEPLOYED });
    cf = await startFakeCloudFront();
    aws = await startAwsTestbed({
      SOURCES_TABLE: DEPLOYED.SourcesTableName,
      STATE_TABLE: DEPLOYED.StateTableName,
      DOCUMENTS_TABLE: DEPLOYED.DocumentsTableName,
      BUCKET: DEPLOYED.MirrorBucketName,
    });
    await seedListedBody(aws, SOURCE, BODY);
    const [row] = await listBodies(
      aws.clients.doc,
      { sources: DEPLOYED.SourcesTableName, state: DEPLOYED.StateTableName },
      SOURCE,
    );
    slug = row?.slug ?? '';
  }, 60_000);
  afterAll(async () => {
    await cfn?.close();
    await cf?.close();
    await sm?.close();
    await aws?.stop();
  });

  const run = () =>
    spawnCli(['tombstone', '--body', slug, '--source', SOURCE, '--aws', '--json'], {
      env: {
        AWS_REGION: 'eu-central-1',
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        AWS_MAX_ATTEMPTS: '1',
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
        AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.url,
        AWS_ENDPOINT_URL_DYNAMODB: aws.peers.dynamodbEndpoint,
        AWS_ENDPOINT_URL_S3: aws.peers.s3Endpoint,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.url,
        AWS_ENDPOINT_URL_CLOUDFRONT: cf.url,
      },
    });

  it('a refused invalidation: the body is taken down all the same, WARNING, exit 1; run again: invalidated', async () => {
    expect(slug).not.toBe('');
    cf.refuse = true;
    const refused = await run();
    expect(refused.code, refused.stderr).toBe(1);
    const json = lastJson(refused) as { tombstoned: unknown; invalidation: Record<string, unknown> };
    expect(json.invalidation).toMatchObject({
      ok: false,
      kind: 'cloudfront',
      error: { code: 'AccessDenied' },
      paths: ['/oparl/v1/body*', `/oparl/v1/${SOURCE}/*`],
    });
    const [row] = await listBodies(
      aws.clients.doc,
      { sources: DEPLOYED.SourcesTableName, state: DEPLOYED.StateTableName },
      SOURCE,
    );
    expect(row?.listed).toBe(false);
    expect(cf.invalidations).toEqual([]);

    cf.refuse = false;
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(lastJson(again).invalidation).toMatchObject({ ok: true, kind: 'cloudfront', batches: 1 });
    expect(cf.invalidations).toEqual([
      {
        distributionId: DEPLOYED.CdnDistributionId,
        callerReference: expect.stringMatching(/^takedown-\d{4}-\d\d-\d\dT.*-0$/),
        quantity: 2,
        paths: ['/oparl/v1/body*', `/oparl/v1/${SOURCE}/*`],
      },
    ]);
  }, 90_000);
});
