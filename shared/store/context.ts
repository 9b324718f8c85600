import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MirrorTablePlacement } from './mirror-index';

/**
 * What a repository of one table needs: the client and the table's physical name. One object instead
 * of `(doc, table, …)` at every call (issue 29 item 4).
 */
export interface TableContext {
  doc: DynamoDBDocumentClient;
  table: string;
}

/**
 * The physical names of the three tables (from the environment: SOURCES_TABLE, STATE_TABLE,
 * DOCUMENTS_TABLE), declared once: a module that needs some of them takes
 * `Pick<StoreTables, 'sources' | 'state'>` (issue 29 item 4).
 */
export interface StoreTables {
  sources: string;
  state: string;
  documents: string;
  /** Issue 28: where the mirror's object items are (MIRROR_TABLE, MIRROR_TABLE_PHASE); absent = State. */
  mirror?: MirrorTablePlacement;
}

/** What a repository of the bucket needs. */
export interface BucketContext {
  s3: S3Client;
  bucket: string;
}

/** A conditional write whose condition did not hold (DynamoDB's one way of saying so). */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string }).name === 'ConditionalCheckFailedException';
}

/** Runs a conditional write; a failed condition is not an error here (`false`), anything else is thrown. */
export async function unlessConditionFails(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
