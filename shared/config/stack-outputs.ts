/**
 * The deployed stack's outputs that name its resources, each with the environment variable the
 * functions read it from. The stack (infra/stack.ts) writes exactly these output keys; the CLI's
 * `--aws` mode reads them with DescribeStacks instead of guessing table names.
 */
export const STACK_OUTPUT_ENV = {
  SourcesTableName: 'SOURCES_TABLE',
  StateTableName: 'STATE_TABLE',
  DocumentsTableName: 'DOCUMENTS_TABLE',
  MirrorBucketName: 'BUCKET',
  SyncQueueUrl: 'SYNC_QUEUE_URL',
  UpstashRestUrl: 'UPSTASH_REDIS_REST_URL',
  UpstashSecretArn: 'UPSTASH_SECRET_ARN',
} as const;

export type StackOutputKey = keyof typeof STACK_OUTPUT_ENV;

/** The stack every deploy step and `--aws` use unless told otherwise (`--stack`). */
export const DEFAULT_STACK_NAME = 'MandariIngestor';
