import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IngestorEnv } from '../config';

/**
 * The AWS clients of one process, built once (STYLE: clients at module load, not per invocation).
 * In AWS the endpoints are the defaults; in local mode and tests they point at the local peers. The
 * change feed is wired on top by the composition roots (shared/changes `createFeedClients`): the store
 * sits below the feed, whose outbox it holds.
 */
export interface AwsClients {
  dynamo: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
}

/** The local peers accept any credentials except s3rver, which insists on these. Never used in AWS. */
const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** Region, and in local mode the local peers' credentials: what every AWS client of a process shares. */
export function awsClientBase(e: IngestorEnv): {
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
} {
  const region = e.AWS_REGION;
  const local = Boolean(e.INGESTOR_DYNAMODB_ENDPOINT || e.INGESTOR_S3_ENDPOINT || e.INGESTOR_SQS_ENDPOINT);
  return local ? { region, credentials: LOCAL_CREDENTIALS } : { region };
}

export function createAwsClients(e: IngestorEnv): AwsClients {
  const base = awsClientBase(e);
  const dynamo = new DynamoDBClient({
    ...base,
    ...(e.INGESTOR_DYNAMODB_ENDPOINT ? { endpoint: e.INGESTOR_DYNAMODB_ENDPOINT } : {}),
  });
  const doc = DynamoDBDocumentClient.from(dynamo, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  const s3 = new S3Client({
    ...base,
    ...(e.INGESTOR_S3_ENDPOINT ? { endpoint: e.INGESTOR_S3_ENDPOINT, forcePathStyle: true } : {}),
  });
  const sqs = new SQSClient({
    ...base,
    ...(e.INGESTOR_SQS_ENDPOINT ? { endpoint: e.INGESTOR_SQS_ENDPOINT } : {}),
  });
  return { dynamo, doc, s3, sqs };
}

export function destroyAwsClients(c: AwsClients): void {
  c.doc.destroy();
  c.dynamo.destroy();
  c.s3.destroy();
  c.sqs.destroy();
}
