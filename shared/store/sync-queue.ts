import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type QueueAttributeName,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/**
 * The sync queue (issue 28): the planner's run messages, the sync's continuations, and the sync worker
 * that takes more messages itself while its invocation has time (shared/sync/worker.ts). Named
 * operations over one queue; the bodies are the caller's (shared/sync/message.ts), this file only moves
 * them.
 */
export interface QueueContext {
  sqs: SQSClient;
  queueUrl: string;
}

/** One received message: its body and the handle that deletes it or gives it back. */
export interface QueuedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
}

/**
 * What a queue holds, by SQS's approximate counts (eventually consistent: a tick may see a message a
 * second late, the next tick sees it): visible, taken and not yet deleted, and delayed.
 */
export interface QueueDepth {
  visible: number;
  inFlight: number;
  delayed: number;
}

/** SQS accepts at most 10 messages per batch call (send and receive). */
export const SQS_BATCH_MAX = 10;

export class SyncQueue {
  constructor(private readonly ctx: QueueContext) {}

  async send(body: string): Promise<void> {
    await this.ctx.sqs.send(new SendMessageCommand({ QueueUrl: this.ctx.queueUrl, MessageBody: body }));
  }

  /**
   * Up to SQS_BATCH_MAX bodies in one call, keyed by the caller's ids; the ids SQS refused are returned
   * (the call as a whole may still throw).
   */
  async sendBatch(entries: readonly { id: string; body: string }[]): Promise<{ failedIds: string[] }> {
    if (entries.length === 0) return { failedIds: [] };
    const sent = await this.ctx.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: this.ctx.queueUrl,
        Entries: entries.map((e) => ({ Id: e.id, MessageBody: e.body })),
      }),
    );
    return { failedIds: (sent.Failed ?? []).map((f) => f.Id ?? '') };
  }

  /**
   * Up to `max` (≤ SQS_BATCH_MAX) messages. `waitSeconds` 0 is a short poll (may miss messages that
   * exist); `visibilitySeconds` omitted keeps the queue's own timeout.
   */
  async receive(options: {
    max: number;
    waitSeconds: number;
    visibilitySeconds?: number;
  }): Promise<QueuedMessage[]> {
    const max = Math.max(1, Math.min(SQS_BATCH_MAX, Math.floor(options.max)));
    const out = await this.ctx.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.ctx.queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: options.waitSeconds,
        ...(options.visibilitySeconds === undefined ? {} : { VisibilityTimeout: options.visibilitySeconds }),
      }),
    );
    return (out.Messages ?? []).map((m) => ({
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
    }));
  }

  /** The message is done with: it will not come back. */
  async delete(receiptHandle: string): Promise<void> {
    await this.ctx.sqs.send(
      new DeleteMessageCommand({ QueueUrl: this.ctx.queueUrl, ReceiptHandle: receiptHandle }),
    );
  }

  /** Issue 28: the planner reads it to start sync workers (shared/planner/wake.ts). */
  async depth(): Promise<QueueDepth> {
    const out = await this.ctx.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: this.ctx.queueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    const count = (name: QueueAttributeName) => Number(out.Attributes?.[name] ?? 0) || 0;
    return {
      visible: count('ApproximateNumberOfMessages'),
      inFlight: count('ApproximateNumberOfMessagesNotVisible'),
      delayed: count('ApproximateNumberOfMessagesDelayed'),
    };
  }

  /** 0 gives the message back at once (another consumer may take it); more hides it that long. */
  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    await this.ctx.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.ctx.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  }
}
