import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * The sync queue (issue 27, host lanes): a lane whose invocation is short of time hands its host on by
 * sending the next run's first message (its lease already taken) — the queue delivers it to a new
 * invocation, which runs it and carries the lane on. The body is the sync message's JSON.
 */
export async function sendSyncQueueMessage(sqs: SQSClient, queueUrl: string, body: string): Promise<void> {
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
}
