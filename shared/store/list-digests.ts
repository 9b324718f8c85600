import { gunzipSync, gzipSync } from 'node:zlib';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AwsClients } from './clients';
import { isConditionFailure } from './context';
import { bodySk, sourcePartition } from './keys';
import { type MirrorTablePlacement, mirrorItemTables } from './mirror-index';
import { queryItems } from './query-pages';
import { LIST_INDEX } from './tables';

/**
 * Issue 28: the per-list digests of full syncs — where they are kept and the one index read that tells
 * which of their entries are stale. The digest's content (id hash → version, its stamp and basis) is
 * the mirror's concern (shared/mirror digest.ts); this repository stores it as it is given.
 *
 * One S3 object per list (source, body, list), gzipped JSON, not DynamoDB items: a list of 14,000
 * papers with two files and a consultation each holds 56,000 entries, measured 2.17 MB of JSON and
 * 1.12 MB gzipped (test/store/list-digests.test.ts) — six items of 400 KB at the least, and DynamoDB
 * bills a write per KB (≈ 1,100–2,100 write units, ≈ $0.0014–0.0027, per rewrite) and a read per 4 KB
 * (≈ 140–270 units, ≈ $0.00003–0.00007); S3 bills one PUT ($0.000005) and one GET ($0.0000004)
 * whatever the size: ≈ 300× cheaper to write, ≈ 100× to read.
 */
export const DIGEST_PREFIX = 'digest';

/**
 * Issue 28: the attribute of a body's `BODY#` State item that holds the digest of its body list page
 * (the body and the objects it embeds, shared/oparl body-page-digest.ts): a few hundred bytes, read
 * with the run's preloaded State items at no extra unit, where an S3 object would cost a GET a run.
 */
export const BODY_PAGE_DIGEST_ATTRIBUTE = 'pageDigest';

export interface ListDigestKey {
  sourceId: string;
  bodyKey: string;
  list: string;
}

/** `digest/<sourceId>/<bodyKey>/<list>.json.gz`: beside the mirror's records, never in its prefix. */
export function listDigestObjectKey(key: ListDigestKey): string {
  return `${DIGEST_PREFIX}/${key.sourceId}/${key.bodyKey}/${key.list}.json.gz`;
}

/**
 * An index item committed after a digest's basis: its table key (pk names source and type, sk the id
 * hash) and its list sort key (the commit time first).
 */
export interface CommittedKey {
  pk: string;
  sk: string;
  ls: string;
}

export class ListDigestRepository {
  constructor(
    private readonly clients: Pick<AwsClients, 'doc' | 's3'>,
    private readonly config: { bucket: string; stateTable: string; mirrorTable?: MirrorTablePlacement },
  ) {}

  /** The stored digest of one list, as written; undefined when there is none. */
  async read(key: ListDigestKey): Promise<unknown | undefined> {
    try {
      const out = await this.clients.s3.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: listDigestObjectKey(key) }),
      );
      const bytes = await out.Body?.transformToByteArray();
      return bytes === undefined ? undefined : JSON.parse(gunzipSync(bytes).toString('utf8'));
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /** Replaces one list's digest (one PUT). Returns the bytes stored. */
  async write(key: ListDigestKey, digest: unknown): Promise<number> {
    const body = gzipSync(JSON.stringify(digest));
    await this.clients.s3.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: listDigestObjectKey(key),
        Body: body,
        ContentType: 'application/gzip',
      }),
    );
    return body.byteLength;
  }

  /**
   * Removes every list digest of a source, its bodies' page digests too (the next runs rebuild them):
   * for what a digest's staleness check cannot see — an index entry removed (a purge) of an object
   * that may come back (`takedown lift`). Returns how many were removed.
   */
  async removeSource(sourceId: string): Promise<number> {
    let removed = await this.removeBodyPageDigests(sourceId);
    let token: string | undefined;
    do {
      const out = await this.clients.s3.send(
        new ListObjectsV2Command({
          Bucket: this.config.bucket,
          Prefix: `${DIGEST_PREFIX}/${sourceId}/`,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const object of out.Contents ?? []) {
        if (object.Key === undefined) continue;
        await this.clients.s3.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: object.Key }));
        removed += 1;
      }
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return removed;
  }

  /** The `BODY#` items of a source that hold a page digest lose it; returns how many did. */
  private async removeBodyPageDigests(sourceId: string): Promise<number> {
    let removed = 0;
    const digested = queryItems(this.clients.doc, {
      TableName: this.config.stateTable,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :body)',
      FilterExpression: 'attribute_exists(#d)',
      ExpressionAttributeNames: { '#d': BODY_PAGE_DIGEST_ATTRIBUTE },
      ExpressionAttributeValues: { ':pk': sourcePartition(sourceId), ':body': bodySk('') },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    for await (const item of digested) {
      try {
        await this.clients.doc.send(
          new UpdateCommand({
            TableName: this.config.stateTable,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'REMOVE #d',
            ConditionExpression: 'attribute_exists(sk)',
            ExpressionAttributeNames: { '#d': BODY_PAGE_DIGEST_ATTRIBUTE },
          }),
        );
        removed += 1;
      } catch (error) {
        // The body's item went meanwhile (the source removed): nothing left to trust.
        if (!isConditionFailure(error)) throw error;
      }
    }
    return removed;
  }

  /**
   * The index items of the given API lists (`byList` partitions) committed after `afterSort` (a list
   * sort key: commit time first): every commit of an object of a body moves its sort key to the commit
   * time — a sync's write, a tombstone, an operator's takedown mark. Keys only; read units of the
   * items found (the minimum for a list nobody touched).
   */
  async committedAfter(partitions: readonly string[], afterSort: string): Promise<CommittedKey[]> {
    const found: CommittedKey[] = [];
    for (const lp of partitions) {
      const committed = queryItems(this.clients.doc, {
        // The mirror's items: in State before the move, in the Mirror table after (issue 28).
        TableName: mirrorItemTables(this.config.stateTable, this.config.mirrorTable).read,
        IndexName: LIST_INDEX,
        KeyConditionExpression: 'lp = :lp AND ls > :after',
        ExpressionAttributeValues: { ':lp': lp, ':after': afterSort },
        ProjectionExpression: 'pk, sk, ls',
      });
      for await (const item of committed) {
        found.push({ pk: String(item.pk), sk: String(item.sk), ls: String(item.ls) });
      }
    }
    return found;
  }
}
