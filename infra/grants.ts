import { Stack } from 'aws-cdk-lib';
import { CfnTable, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { retiringIndexes, type TableDefinition } from '../shared/store';

/**
 * Grants written out instead of the L2 `grant*` helpers: those add `<table>/index/*` and action
 * wildcards (`s3:GetObject*`, `s3:Abort*` …). Here every action is named and every index ARN comes
 * from the shared table definition, so a policy says exactly what the code may do.
 */

/**
 * The global indexes `table` has as synthesised (its CloudFormation resource; undefined for a table
 * this app does not define). A rollout may leave a defined index out of the table
 * (`-c mirrorTable=ownDropped` deletes State's `byList`): a policy names only indexes that exist.
 * Read when granting: the stack adds every index when it creates the table, before any grant.
 */
function synthesisedIndexes(table: ITable): Set<string> | undefined {
  const resource = table.node.defaultChild;
  if (!(resource instanceof CfnTable)) return undefined;
  const indexes = Stack.of(table).resolve(resource.globalSecondaryIndexes) as
    | { indexName: string }[]
    | undefined;
  return new Set((indexes ?? []).map((index) => index.indexName));
}

export type Access = 'read' | 'readWrite';

/** Single-item conditional writes only: the design has no transactions (dynalite has none either). */
const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:Scan'];
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];
/** An index can only be read, and only by Query / Scan. */
const INDEX_ACTIONS = ['dynamodb:Query', 'dynamodb:Scan'];

export function grantTable(
  grantee: IGrantable,
  table: ITable,
  definition: TableDefinition,
  access: Access,
): void {
  Grant.addToPrincipal({
    grantee,
    actions: access === 'readWrite' ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : TABLE_READ_ACTIONS,
    resourceArns: [table.tableArn],
  });
  // The indexes a new one replaces are read while it is being built (shared/store source-state.ts).
  const exists = synthesisedIndexes(table);
  const indexes = [...definition.globalIndexes, ...retiringIndexes(definition)].filter(
    (index) => exists === undefined || exists.has(index.indexName),
  );
  if (indexes.length > 0) {
    Grant.addToPrincipal({
      grantee,
      actions: INDEX_ACTIONS,
      resourceArns: indexes.map((index) => `${table.tableArn}/index/${index.indexName}`),
    });
  }
}

/**
 * Exactly the named reads, for a read-only function (the mirror API): table actions on the table, and
 * Query on the named indexes of its definition only — not every index, never a write. Naming an index
 * the synthesised table lacks is an error (the caller leaves it out in that rollout phase).
 */
export function grantTableReads(
  grantee: IGrantable,
  table: ITable,
  definition: TableDefinition,
  reads: { actions: string[]; indexes?: string[] },
): void {
  const unknown = reads.actions.filter((action) => !TABLE_READ_ACTIONS.includes(action));
  if (unknown.length > 0) throw new Error(`not a read action: ${unknown.join(', ')}`);
  Grant.addToPrincipal({ grantee, actions: reads.actions, resourceArns: [table.tableArn] });
  const indexes = reads.indexes ?? [];
  const exists = synthesisedIndexes(table);
  for (const name of indexes) {
    if (
      !definition.globalIndexes.some((index) => index.indexName === name) ||
      (exists !== undefined && !exists.has(name))
    )
      throw new Error(`table ${definition.logicalName} has no index ${name}`);
  }
  if (indexes.length > 0) {
    Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:Query'],
      resourceArns: indexes.map((name) => `${table.tableArn}/index/${name}`),
    });
  }
}

const OBJECT_READ_ACTIONS = ['s3:GetObject'];
/** AbortMultipartUpload: lib-storage `Upload` cleans up after a failed multipart upload. */
const OBJECT_WRITE_ACTIONS = ['s3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'];

/**
 * Object access under the given key prefixes (`mirror/` …). ListBucket is granted on the bucket
 * without a prefix condition on purpose: S3 answers a GET/HEAD of a missing key with 404 only to a
 * caller that may list the bucket (otherwise 403), and "not stored yet" must be tellable from
 * "forbidden". Listing reveals key names of our own mirror, nothing else.
 */
export function grantBucketPrefixes(
  grantee: IGrantable,
  bucket: IBucket,
  prefixes: string[],
  access: Access,
): void {
  Grant.addToPrincipal({
    grantee,
    actions: access === 'readWrite' ? [...OBJECT_READ_ACTIONS, ...OBJECT_WRITE_ACTIONS] : OBJECT_READ_ACTIONS,
    resourceArns: prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
  });
  Grant.addToPrincipal({ grantee, actions: ['s3:ListBucket'], resourceArns: [bucket.bucketArn] });
}
