import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsPeers, startAwsPeers } from '../../cli/local/peers';
import { parseEnv } from '../../shared/config/env';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../shared/store/clients';
import { provisionLocal, tableName } from '../../shared/store/provision';
import { TABLES } from '../../shared/store/tables';

describe('local peers and provisioning', () => {
  let peers: AwsPeers;
  let clients: AwsClients;
  const e = () => parseEnv({ ...peers.env });

  beforeAll(async () => {
    peers = await startAwsPeers();
    clients = createAwsClients(e());
  });
  afterAll(async () => {
    destroyAwsClients(clients);
    await peers.stop();
  });

  it('creates every table with its indexes, the bucket and the queues — twice without error', async () => {
    const first = await provisionLocal(clients, e());
    const second = await provisionLocal(clients, e());
    expect(second.syncQueueUrl).toBe(first.syncQueueUrl);

    for (const def of TABLES) {
      // Issue 28: the Mirror table too (MIRROR_TABLE), named as provisionLocal names it.
      const name = tableName(def, e());
      const table = await clients.dynamo.send(new DescribeTableCommand({ TableName: name }));
      expect(table.Table?.KeySchema?.[0]?.AttributeName).toBe(def.partitionKey);
      expect((table.Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName).sort()).toEqual(
        def.globalIndexes.map((g) => g.indexName).sort(),
      );
    }

    await clients.s3.send(
      new PutObjectCommand({ Bucket: e().BUCKET, Key: 'mirror/x.json', Body: '{"a":1}' }),
    );
    const got = await clients.s3.send(new GetObjectCommand({ Bucket: e().BUCKET, Key: 'mirror/x.json' }));
    expect(await got.Body?.transformToString()).toBe('{"a":1}');

    await clients.sqs.send(new SendMessageCommand({ QueueUrl: first.syncQueueUrl, MessageBody: 'hello' }));
    const received = await clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: first.syncQueueUrl, WaitTimeSeconds: 1 }),
    );
    expect(received.Messages?.[0]?.Body).toBe('hello');
  });
});
