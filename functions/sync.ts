import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
// Sync Lambda (SQS sync queue): runs one source's sync per message, reports partial batch failures.
export const handler = async (_event: SQSEvent): Promise<SQSBatchResponse> => {
  throw new Error('sync not wired yet');
};
