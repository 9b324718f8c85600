/**
 * Memory per function (MB), in one place for the stack and the cost model (bench/cost.ts): Lambda
 * bills memory × wall time, so every size here is a price. No CDK import, so the bench loads it cheaply.
 */
export const FUNCTION_MEMORY_MB = {
  planner: 512,
  sync: 1024,
  // Text extraction holds a file of up to 50 MB and pdfjs's parse of it (DOC-2).
  files: 1536,
  deletionCheck: 1024,
  photos: 512,
  preview: 1024,
  // One list page (≤ 100 small JSON objects) at a time; reads only.
  mirrorApi: 512,
} as const;

/**
 * Sync messages per invocation (issue 18). The records of a batch run concurrently (Powertools'
 * BatchProcessor, shared/sync/batch.ts): their politeness waits overlap instead of being billed one
 * after another, and the invocation lasts as long as its longest run. Each source's host pace stays
 * global through the slot store; a failed record is a partial batch failure, redelivered alone. Ten is
 * SQS's largest batch without a batching window, so a message is never held back to fill one.
 */
export const SYNC_BATCH_SIZE = 10;
