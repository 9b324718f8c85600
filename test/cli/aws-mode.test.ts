import { spawn } from 'node:child_process';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandFetches, readStackEnv, requireSharedSlots, StackOutputsError } from '../../cli/aws';
import { UPSTASH_URL_PLACEHOLDER } from '../../infra/settings';
import { parseEnv } from '../../shared/config/env';
import {
  DEFAULT_STACK_NAME,
  OPTIONAL_STACK_OUTPUTS,
  STACK_OUTPUT_ENV,
} from '../../shared/config/stack-outputs';
import { putSourceItem } from '../../shared/store/sources';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { type FakeCloudFormation, startFakeCloudFormation } from '../support/cloudformation';
import { type FakeSecretsManager, startFakeSecretsManager } from '../support/secrets-manager';

/**
 * The CLI's `--aws` mode without AWS: stack outputs come from a loopback server speaking CloudFormation's
 * query protocol (DescribeStacks), DynamoDB is the dynalite peer reached through the SDK's standard
 * `AWS_ENDPOINT_URL_DYNAMODB`. RATE-1 / RATE-4: fetching without the shared slot store is refused.
 */
const DEPLOYED = {
  SourcesTableName: 'MandariIngestor-SourcesTable1A2B-XYZ',
  StateTableName: 'MandariIngestor-StateTable3C4D-XYZ',
  DocumentsTableName: 'MandariIngestor-DocumentsTable5E6F-XYZ',
  MirrorBucketName: 'mandariingestor-mirrorbucket-xyz',
  SyncQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/MandariIngestor-SyncQueue-XYZ',
  // Issue 25 point 5: the key of the mirror ids, read by `--aws` from the deployed secret.
  ApiIdKeySecretArn: 'arn:aws:secretsmanager:eu-central-1:111122223333:secret:MandariIngestor-ApiIdKey-AbCd',
};
const API_ID_KEY = 'Kq3Wz8Xr1Tv6Nb4Mc9Ld2Fh7Gj5Hs0Pa3Ue8Yo1Iw6Ek4Rt9Sm2Zn7Xc5Vb0Qd';

function runCli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['cli/bin.mjs', ...args], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Only what the test names: no operator's Upstash, table or endpoint variables leak in.
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        AWS_REGION: 'eu-central-1',
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        // Anything not pointed at a local peer fails fast instead of reaching AWS.
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
        AWS_MAX_ATTEMPTS: '1',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('ingestor --aws', () => {
  let cfn: FakeCloudFormation;
  let aws: AwsTestbed;
  let sm: FakeSecretsManager;

  beforeAll(async () => {
    sm = await startFakeSecretsManager(DEPLOYED.ApiIdKeySecretArn, API_ID_KEY);
    cfn = await startFakeCloudFormation({
      [DEFAULT_STACK_NAME]: DEPLOYED,
      Shared: {
        ...DEPLOYED,
        UpstashRestUrl: 'https://eu1-real.upstash.io',
        UpstashSecretArn:
          'arn:aws:secretsmanager:eu-central-1:111122223333:secret:mandari-ingestor/upstash-token',
      },
      Partial: { SourcesTableName: 'x-sources' },
    });
    // The tables exist under the names the stack's outputs give, not under the local defaults.
    aws = await startAwsTestbed({
      SOURCES_TABLE: DEPLOYED.SourcesTableName,
      STATE_TABLE: DEPLOYED.StateTableName,
      DOCUMENTS_TABLE: DEPLOYED.DocumentsTableName,
    });
    await putSourceItem(aws.clients.doc, DEPLOYED.SourcesTableName, {
      sourceId: 'stadt-deployed',
      systemUrl: 'https://ris.stadt-deployed.de/oparl/v1/system',
      active: true,
    });
  }, 60_000);
  afterAll(async () => {
    await cfn?.close();
    await aws?.stop();
    await sm?.close();
  });

  it('reads table, bucket, queue and Upstash names from the stack outputs (DescribeStacks)', async () => {
    // prepare
    const client = new CloudFormationClient({
      region: 'eu-central-1',
      endpoint: cfn.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    cfn.requests.length = 0;
    // act
    const env = await readStackEnv('Shared', client);
    // assess
    expect(cfn.requests).toEqual([
      expect.objectContaining({ Action: 'DescribeStacks', StackName: 'Shared' }),
    ]);
    expect(env).toEqual({
      SOURCES_TABLE: DEPLOYED.SourcesTableName,
      STATE_TABLE: DEPLOYED.StateTableName,
      DOCUMENTS_TABLE: DEPLOYED.DocumentsTableName,
      BUCKET: DEPLOYED.MirrorBucketName,
      SYNC_QUEUE_URL: DEPLOYED.SyncQueueUrl,
      UPSTASH_REDIS_REST_URL: 'https://eu1-real.upstash.io',
      UPSTASH_SECRET_ARN:
        'arn:aws:secretsmanager:eu-central-1:111122223333:secret:mandari-ingestor/upstash-token',
      INGESTOR_API_ID_KEY_SECRET_ARN: DEPLOYED.ApiIdKeySecretArn,
    });
    // Every output of the always-deployed parts; an optional part's output (the change feed's bus) is
    // absent when that part is not deployed, as here.
    const optional = new Set<string>(OPTIONAL_STACK_OUTPUTS);
    const always = Object.entries(STACK_OUTPUT_ENV).filter(([key]) => !optional.has(key));
    expect(Object.keys(env).sort()).toEqual(always.map(([, name]) => name).sort());
    client.destroy();
  });

  it('a missing stack or one without the table outputs is a clear error, not a guess', async () => {
    const client = new CloudFormationClient({
      region: 'eu-central-1',
      endpoint: cfn.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      maxAttempts: 1,
    });
    await expect(readStackEnv('Nope', client)).rejects.toThrow(
      /cannot read the outputs of stack Nope.*does not exist/,
    );
    await expect(readStackEnv('Partial', client)).rejects.toThrow(
      /stack Partial has no output StateTableName, DocumentsTableName, MirrorBucketName, SyncQueueUrl/,
    );
    await expect(readStackEnv('Partial', client)).rejects.toBeInstanceOf(StackOutputsError);
    client.destroy();
  });

  it('RATE-1 / RATE-4: which commands fetch, and that only they need the shared slot store', () => {
    const none = parseEnv({});
    const placeholder = parseEnv({
      UPSTASH_REDIS_REST_URL: UPSTASH_URL_PLACEHOLDER,
      UPSTASH_SECRET_ARN: 'arn:x',
    });
    const shared = parseEnv({
      UPSTASH_REDIS_REST_URL: 'https://eu1-real.upstash.io',
      UPSTASH_SECRET_ARN: 'arn:x',
    });
    for (const words of [
      ['sync'],
      ['probe'],
      ['files'],
      ['deletion-check'],
      ['photos'],
      ['serve'],
      ['sources', 'add'],
      ['sources', 'import'],
    ]) {
      expect(commandFetches(words), words.join(' ')).toBe(true);
      expect(() => requireSharedSlots(words, none, 'S')).toThrow(/no Upstash is configured/);
      expect(() => requireSharedSlots(words, placeholder, 'S')).toThrow(/no Upstash is configured/);
      expect(() => requireSharedSlots(words, shared, 'S')).not.toThrow();
    }
    for (const words of [
      ['status'],
      ['hosts'],
      ['sources', 'list'],
      ['sources', 'set'],
      ['files', 'clear'],
      ['documents'],
      ['bodies'],
      ['request'],
      ['tombstone'],
      ['purge-deleted'],
    ]) {
      expect(commandFetches(words), words.join(' ')).toBe(false);
      expect(() => requireSharedSlots(words, none, 'S')).not.toThrow();
    }
  });

  it('RATE-1 / RATE-4: `sync --aws` without Upstash is refused with exit 2 and says why; nothing else is contacted', async () => {
    cfn.requests.length = 0;
    // act
    const out = await runCli(['sync', '--url', 'https://ris.stadt-deployed.de/oparl/v1/system', '--aws'], {
      AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.url,
    });
    // assess
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toMatch(/"sync" fetches from council servers; under --aws it must share/);
    expect(out.stderr).toMatch(/RATE-1\/RATE-4/);
    expect(cfn.requests).toEqual([expect.objectContaining({ StackName: DEFAULT_STACK_NAME })]);
  }, 60_000);

  it('`status --aws --stack` reads the tables the stack outputs name (no Upstash needed to read)', async () => {
    // act
    const out = await runCli(['status', '--aws', '--stack', DEFAULT_STACK_NAME, '--json'], {
      AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.url,
      AWS_ENDPOINT_URL_DYNAMODB: aws.peers.dynamodbEndpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.url,
    });
    // assess
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('stadt-deployed');
    // The key of the deployment's ids, read once from its secret (issue 25 point 5), never printed.
    expect(sm.requests).toBe(1);
    expect(out.stdout + out.stderr).not.toContain(API_ID_KEY.slice(0, 12));
  }, 60_000);

  it('RATE-9: `hosts --aws --json` reads the deployed tables: each host with its sources, capacity and demand', async () => {
    const out = await runCli(['hosts', '--aws', '--stack', DEFAULT_STACK_NAME, '--json'], {
      AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.url,
      AWS_ENDPOINT_URL_DYNAMODB: aws.peers.dynamodbEndpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.url,
    });
    expect(out.code, out.stderr).toBe(0);
    const json = JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}') as {
      hosts: { host: string; sources: string[]; capacity: number; demand: number }[];
    };
    expect(json.hosts).toEqual([
      expect.objectContaining({ host: 'ris.stadt-deployed.de', sources: ['stadt-deployed'], capacity: 1 }),
    ]);
    expect(json.hosts[0]?.demand).toBeGreaterThan(0);
  }, 60_000);

  it('`--stack` without `--aws` is a usage error', async () => {
    const out = await runCli(['status', '--stack', 'X'], {});
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--stack names the deployed stack of --aws/);
  }, 60_000);
});
