/**
 * The deployed stack's outputs that name its resources, each with the environment variable the
 * functions read it from. The stack (infra/stack.ts) writes exactly these output keys; the CLI's
 * `--aws` mode reads them with DescribeStacks instead of guessing table names.
 */
export const STACK_OUTPUT_ENV = {
  SourcesTableName: 'SOURCES_TABLE',
  StateTableName: 'STATE_TABLE',
  DocumentsTableName: 'DOCUMENTS_TABLE',
  /** Issue 28: the mirror's object index and where it is read and written (a stack before it: absent). */
  MirrorTableName: 'MIRROR_TABLE',
  MirrorTablePhase: 'MIRROR_TABLE_PHASE',
  MirrorBucketName: 'BUCKET',
  SyncQueueUrl: 'SYNC_QUEUE_URL',
  UpstashRestUrl: 'UPSTASH_REDIS_REST_URL',
  UpstashSecretArn: 'UPSTASH_SECRET_ARN',
  /** The key of the mirror's ids (issue 25 point 5): the CLI reads it to name objects as the API does. */
  ApiIdKeySecretArn: 'INGESTOR_API_ID_KEY_SECRET_ARN',
  /** Only when the change feed is on (`-c changeFeed=…`, issue 16). */
  ChangeBusName: 'INGESTOR_CHANGE_BUS',
  /**
   * Only with a CloudFront distribution (the preview's or the API's): a takedown invalidates its paths
   * there (OPT-2 "at once", `ingestor --aws tombstone`).
   */
  CdnDistributionId: 'INGESTOR_CDN_DISTRIBUTION_ID',
} as const;

export type StackOutputKey = keyof typeof STACK_OUTPUT_ENV;

/** Outputs of optional parts of the stack: absent when the part is not deployed. */
export const OPTIONAL_STACK_OUTPUTS = [
  'MirrorTableName',
  'MirrorTablePhase',
  'ChangeBusName',
  'CdnDistributionId',
] as const satisfies readonly StackOutputKey[];
export type OptionalStackOutputKey = (typeof OPTIONAL_STACK_OUTPUTS)[number];

/** The stack every deploy step and `--aws` use unless told otherwise (`--stack`). */
export const DEFAULT_STACK_NAME = 'MandariIngestor';
