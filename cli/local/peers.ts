import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dynalite from 'dynalite';
import { startFauxqs } from 'fauxqs';
import S3rver from 's3rver';
import { makeObjectWritesAtomic } from './atomic-s3';

/**
 * Real-protocol local peers for DynamoDB (dynalite), S3 (s3rver) and SQS (fauxqs), started in this
 * process on free loopback ports. Used by `npm start`, the CLI's local mode and the tests: the code under
 * test talks to them with the real AWS SDK clients, only the endpoints differ from AWS.
 */
export interface AwsPeers {
  dynamodbEndpoint: string;
  s3Endpoint: string;
  sqsEndpoint: string;
  /**
   * Where s3rver keeps the buckets, one folder each (read on every request, nothing cached): the tests
   * copy a bucket's folder to put a seeded state back (test/support/store-snapshot.ts).
   */
  s3Directory: string;
  /** Environment for `parseEnv`: the peers' endpoints. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface AwsPeersOptions {
  /** Persist DynamoDB and S3 under this folder (local mode `.data/`); omitted = temporary, removed on stop. */
  dataDir?: string;
}

export async function startAwsPeers(options: AwsPeersOptions = {}): Promise<AwsPeers> {
  const tempDir =
    options.dataDir === undefined ? await mkdtemp(join(tmpdir(), 'ingestor-peers-')) : undefined;
  const baseDir = options.dataDir ?? (tempDir as string);

  const dynamo: Server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir === undefined ? {} : { path: join(baseDir, 'dynamodb') }),
  });
  await new Promise<void>((resolve, reject) => {
    dynamo.once('error', reject);
    dynamo.listen(0, '127.0.0.1', () => resolve());
  });
  const dynamoPort = (dynamo.address() as AddressInfo).port;

  const s3Directory = join(baseDir, 's3');
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Directory });
  // As S3: a GET during a PUT of the key answers the old object or the new one, whole (atomic-s3.ts).
  makeObjectWritesAtomic(s3, join(baseDir, 's3-staging'));
  const s3Address = await s3.run();

  const sqs = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });

  const dynamodbEndpoint = `http://127.0.0.1:${dynamoPort}`;
  const s3Endpoint = `http://127.0.0.1:${s3Address.port}`;
  const sqsEndpoint = `http://127.0.0.1:${sqs.port}`;

  return {
    dynamodbEndpoint,
    s3Endpoint,
    sqsEndpoint,
    s3Directory,
    env: {
      INGESTOR_DYNAMODB_ENDPOINT: dynamodbEndpoint,
      INGESTOR_S3_ENDPOINT: s3Endpoint,
      INGESTOR_SQS_ENDPOINT: sqsEndpoint,
      AWS_REGION: 'eu-central-1',
    },
    async stop() {
      await Promise.allSettled([
        new Promise<void>((resolve) => dynamo.close(() => resolve())),
        s3.close(),
        sqs.stop(),
      ]);
      if (tempDir !== undefined) await rm(tempDir, { recursive: true, force: true });
    },
  };
}
