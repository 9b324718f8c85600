import {
  CreateTableCommand,
  type CreateTableCommandInput,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { BucketAlreadyOwnedByYou, CreateBucketCommand, HeadBucketCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import type { IngestorEnv } from '../config';
import type { AwsClients } from './clients';
import { TABLES, type TableDefinition } from './tables';

/**
 * Local mode only: create the tables, bucket and queues that the CDK stack creates in AWS, from the same
 * definitions. Idempotent, so `npm start` can run it on every start against a persisted `.data/`.
 */
export const LOCAL_SYNC_QUEUE = 'ingestor-sync';
export const LOCAL_SYNC_DLQ = 'ingestor-sync-dlq';
export const LOCAL_SYNC_WAKE_QUEUE = 'ingestor-sync-wake';

export function tableName(def: TableDefinition, e: IngestorEnv): string {
  switch (def.logicalName) {
    case 'Sources':
      return e.SOURCES_TABLE;
    case 'State':
      return e.STATE_TABLE;
    case 'Documents':
      return e.DOCUMENTS_TABLE;
    case 'Mirror':
      return e.MIRROR_TABLE;
  }
}

export function createTableInput(def: TableDefinition, name: string): CreateTableCommandInput {
  const attributes = new Set<string>([def.partitionKey]);
  if (def.sortKey) attributes.add(def.sortKey);
  for (const gsi of def.globalIndexes) {
    attributes.add(gsi.partitionKey);
    attributes.add(gsi.sortKey);
  }
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((a) => ({ AttributeName: a, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: def.partitionKey, KeyType: 'HASH' },
      ...(def.sortKey ? [{ AttributeName: def.sortKey, KeyType: 'RANGE' as const }] : []),
    ],
    ...(def.globalIndexes.length > 0
      ? {
          GlobalSecondaryIndexes: def.globalIndexes.map((gsi) => ({
            IndexName: gsi.indexName,
            KeySchema: [
              { AttributeName: gsi.partitionKey, KeyType: 'HASH' as const },
              { AttributeName: gsi.sortKey, KeyType: 'RANGE' as const },
            ],
            Projection: gsi.include
              ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: gsi.include }
              : { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
  };
}

export interface ProvisionedLocal {
  syncQueueUrl: string;
  syncDlqUrl: string;
  syncWakeQueueUrl: string;
}

export async function provisionLocal(clients: AwsClients, e: IngestorEnv): Promise<ProvisionedLocal> {
  for (const def of TABLES) {
    try {
      await clients.dynamo.send(new CreateTableCommand(createTableInput(def, tableName(def, e))));
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
  }
  try {
    await clients.s3.send(new HeadBucketCommand({ Bucket: e.BUCKET }));
  } catch {
    try {
      await clients.s3.send(new CreateBucketCommand({ Bucket: e.BUCKET }));
    } catch (err) {
      if (!(err instanceof BucketAlreadyOwnedByYou)) throw err;
    }
  }
  const dlq = await clients.sqs.send(new CreateQueueCommand({ QueueName: LOCAL_SYNC_DLQ }));
  const dlqArn = `arn:aws:sqs:${e.AWS_REGION}:000000000000:${LOCAL_SYNC_DLQ}`;
  const queue = await clients.sqs.send(
    new CreateQueueCommand({
      QueueName: LOCAL_SYNC_QUEUE,
      Attributes: {
        VisibilityTimeout: '900',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }),
      },
    }),
  );
  // Issue 28: the wake queue of the sync workers the planner starts (infra `syncTrigger` planner).
  const wake = await clients.sqs.send(
    new CreateQueueCommand({ QueueName: LOCAL_SYNC_WAKE_QUEUE, Attributes: { VisibilityTimeout: '900' } }),
  );
  return {
    syncQueueUrl: queue.QueueUrl as string,
    syncDlqUrl: dlq.QueueUrl as string,
    syncWakeQueueUrl: wake.QueueUrl as string,
  };
}
