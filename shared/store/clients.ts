import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ChangeFeed, type ChangeSink, eventBridgeSink, fileSink } from '../changes';
import type { IngestorEnv } from '../config';

/**
 * The AWS clients of one process, built once (STYLE: clients at module load, not per invocation).
 * In AWS the endpoints are the defaults; in local mode and tests they point at the local peers.
 */
export interface AwsClients {
  dynamo: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
  /** Set when the change feed is on (`INGESTOR_CHANGE_BUS`): the client it publishes with. */
  events?: EventBridgeClient;
  /**
   * The mirror's change feed (issue 16), when configured: the mirror store records every commit here.
   * It rides with the clients because every writer of the mirror already receives them.
   */
  changes?: ChangeFeed;
}

/** The local peers accept any credentials except s3rver, which insists on these. Never used in AWS. */
const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export function createAwsClients(e: IngestorEnv): AwsClients {
  const region = e.AWS_REGION;
  const local = Boolean(e.INGESTOR_DYNAMODB_ENDPOINT || e.INGESTOR_S3_ENDPOINT || e.INGESTOR_SQS_ENDPOINT);
  const base = local ? { region, credentials: LOCAL_CREDENTIALS } : { region };
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
  const clients: AwsClients = { dynamo, doc, s3, sqs };
  let sink: ChangeSink | undefined;
  if (e.INGESTOR_CHANGE_BUS) {
    clients.events = new EventBridgeClient({
      ...base,
      ...(e.INGESTOR_EVENTBRIDGE_ENDPOINT ? { endpoint: e.INGESTOR_EVENTBRIDGE_ENDPOINT } : {}),
    });
    sink = eventBridgeSink(clients.events, e.INGESTOR_CHANGE_BUS);
  } else if (e.INGESTOR_CHANGE_FILE) {
    sink = fileSink(e.INGESTOR_CHANGE_FILE);
  }
  if (sink) clients.changes = new ChangeFeed({ sink, outbox: { doc, table: e.STATE_TABLE } });
  return clients;
}

export function destroyAwsClients(c: AwsClients): void {
  c.doc.destroy();
  c.dynamo.destroy();
  c.s3.destroy();
  c.sqs.destroy();
  c.events?.destroy();
}
