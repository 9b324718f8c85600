import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { FetchSource, FetchStreamResult, PoliteFetcher, RunContext } from '../fetch';
import { incomingKey } from '../mirror';
import { BucketObjects, isMissingKey } from '../store';
import { UPLOAD_PART_BYTES, UPLOAD_QUEUE_SIZE } from './constants';
import { outcomeOfError } from './decide';
import type { FetchOutcome } from './types';

/**
 * S3 side of the document functions: a file streamed from the source into S3 with a multipart
 * `Upload` (never the whole file in memory; a PutObject of a stream of unknown length fails, see
 * notes/local-stack.md), its SHA-256 and size computed on the way.
 */

/** Counts bytes and hashes them while they flow to the upload. */
class HashingCounter extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

export interface StreamedObject {
  size: number;
  sha256: string;
}

/** Our bucket and the client that reaches it (the passes' deps and a file fetch context are one). */
export interface BucketAccess {
  s3: S3Client;
  bucket: string;
}

/**
 * Streams `body` to `key`. Rejects with the body's own error (RESPONSE_TOO_LARGE, BODY_INCOMPLETE …)
 * when the source side fails — the multipart upload is aborted then, nothing is left under `key` —
 * and with the S3 error when our side fails.
 */
export async function uploadStream(
  { s3, bucket }: BucketAccess,
  key: string,
  body: Readable,
  contentType: string | undefined,
): Promise<StreamedObject> {
  const counter = new HashingCounter();
  let sourceError: unknown;
  const tail = pipeline(body, counter, (error) => {
    if (error) sourceError ??= error;
  }) as unknown as Readable;
  try {
    await new BucketObjects({ s3, bucket }).upload(key, tail, {
      ...(contentType === undefined ? {} : { contentType }),
      partSize: UPLOAD_PART_BYTES,
      queueSize: UPLOAD_QUEUE_SIZE,
    });
  } catch (error) {
    body.destroy();
    counter.destroy();
    throw sourceError ?? error;
  }
  if (sourceError !== undefined) throw sourceError;
  return { size: counter.bytes, sha256: counter.hash.digest('hex') };
}

export async function deleteObjects(s3: S3Client, bucket: string, keys: string[]): Promise<void> {
  // DeleteObject of a missing key succeeds: deleting is idempotent.
  const objects = new BucketObjects({ s3, bucket });
  for (const key of keys) await objects.delete(key);
}

/** The whole object, at most `maxBytes` (text extraction needs the file in memory: ≤ 50 MB, DOC-2). */
export async function readObject(
  s3: S3Client,
  bucket: string,
  key: string,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const out = await new BucketObjects({ s3, bucket }).openRead(key);
  if (out === undefined) return undefined;
  if (out.contentLength !== undefined && out.contentLength > maxBytes) {
    (out.body as Readable | undefined)?.destroy();
    return undefined;
  }
  try {
    return await readAll(out.body, maxBytes);
  } catch (err) {
    if (isMissingKey(err)) return undefined;
    throw err;
  }
}

/** Reads a stream into one buffer; undefined when it passes `maxBytes`. */
export async function readAll(stream: Readable, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export async function putObject(
  { s3, bucket }: BucketAccess,
  key: string,
  body: string | Buffer,
  contentType: string,
): Promise<void> {
  await new BucketObjects({ s3, bucket }).put(key, body, { contentType });
}

export { fetchSourceOf } from '../fetch';

export interface FileFetchContext {
  fetcher: PoliteFetcher;
  s3: S3Client;
  bucket: string;
  source: FetchSource;
  /** RATE-2: the largest interval of any source on the host, ms. */
  hostIntervalMs?: number;
  runContext?: RunContext;
}

/**
 * One streamed fetch of a file into `key` through the polite fetcher (ROB, RATE, RED; DOC-1). The
 * fetcher enforces `maxBytes` while streaming and refuses an HTML page instead of a file; a 304 to
 * the conditional request (B-1) comes back as `not-modified`; an empty 2xx body as `empty`. Errors of
 * the source side become a `failed` / `deferred` outcome; S3 errors are thrown (they are ours, not the
 * source's).
 *
 * The file is streamed to its incoming key and promoted to `key` only once it is a valid file (DOC-5):
 * whatever the source answers, a copy already under `key` is replaced only by a complete, non-empty
 * file, and a run that dies before promoting leaves `key` as it was.
 */
export async function fetchFileToS3(
  ctx: FileFetchContext,
  url: string,
  key: string,
  options: { maxBytes: number; conditional?: { etag?: string; lastModified?: string } },
): Promise<FetchOutcome> {
  let result: Awaited<ReturnType<PoliteFetcher['stream']>>;
  try {
    result = await ctx.fetcher.stream(url, {
      purpose: 'file',
      source: ctx.source,
      maxBytes: options.maxBytes,
      ...(ctx.hostIntervalMs === undefined ? {} : { hostIntervalMs: ctx.hostIntervalMs }),
      ...(ctx.runContext === undefined ? {} : { runContext: ctx.runContext }),
      ...(options.conditional && (options.conditional.etag || options.conditional.lastModified)
        ? { conditional: options.conditional }
        : {}),
    });
  } catch (error) {
    return outcomeOfError(error);
  }
  if (result.notModified) {
    result.body.destroy();
    return {
      kind: 'not-modified',
      ...(result.etag === undefined ? {} : { etag: result.etag }),
      ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
    };
  }
  let copy: VerifiedCopy;
  try {
    copy = await storeVerifiedCopy(ctx, { key, body: result.body, contentType: result.contentType });
  } catch (error) {
    if (isFetcherError(error)) return outcomeOfError(error);
    throw error;
  }
  if (copy.kind !== 'stored') return { kind: 'empty' };
  return storedOutcome(copy.object, result);
}

/**
 * The outcome of a copy stored from a source's answer, as the document item records it: the object's
 * size and hash, and the answer's final URL, type and validators (the next fetch's conditional request).
 */
export function storedOutcome(
  object: StreamedObject,
  result: Pick<FetchStreamResult, 'finalUrl' | 'contentType' | 'etag' | 'lastModified'>,
): Extract<FetchOutcome, { kind: 'stored' }> {
  return {
    kind: 'stored',
    size: object.size,
    sha256: object.sha256,
    fetchedUrl: result.finalUrl,
    ...(result.contentType === undefined ? {} : { contentType: result.contentType }),
    ...(result.etag === undefined ? {} : { etag: result.etag }),
    ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
  };
}

/** What became of a streamed file: promoted to its key, empty, or refused at the commit point. */
export type VerifiedCopy =
  | { kind: 'stored'; object: StreamedObject }
  | { kind: 'empty' }
  | { kind: 'not-kept' };

/** A fetched file on its way to its copy's `key`; `mayKeep` is OPT-5's look (see storeVerifiedCopy). */
export interface FetchedCopy {
  key: string;
  body: Readable;
  contentType: string | undefined;
  mayKeep?: () => Promise<boolean>;
}

/**
 * DOC-5: the one write path of a fetched file to a copy's `key` (the document cache, the deletion
 * check's re-fetch, the preview's PRV-3 copy). Only a complete, non-empty file ever reaches `key`, so a
 * body cut mid-way, an empty answer or a run that dies first never leaves a partial or unverified
 * object there:
 * - a file of at most one upload part (UPLOAD_PART_BYTES; ≈ 99.5 % of council files by the cost
 *   model's sizes) is read whole into memory first — lib-storage's `Upload` holds such a part in memory
 *   anyway — and written to `key` with one PutObject (atomic: the key holds the old copy or the new one);
 * - a larger one is streamed to the incoming key (a multipart upload, aborted when the body fails) and
 *   promoted to `key` by a CopyObject once complete.
 * Issue 28: the first way saves the promotion's CopyObject (a PUT-class request) of nearly every file.
 *
 * `mayKeep` (OPT-5: not taken down) is asked at the commit point: before the write to `key` — a refused
 * copy never reaches it — and once more after it, since a takedown may land between the look and the
 * write (its purge ran before the object existed): then the new copy is deleted again.
 */
export async function storeVerifiedCopy(access: BucketAccess, copy: FetchedCopy): Promise<VerifiedCopy> {
  const { key, mayKeep } = copy;
  const head = await readHead(copy.body, UPLOAD_PART_BYTES);
  if ('whole' in head) {
    const object = { size: head.whole.length, sha256: createHash('sha256').update(head.whole).digest('hex') };
    if (object.size === 0) return { kind: 'empty' };
    if (mayKeep && !(await mayKeep())) return { kind: 'not-kept' };
    await new BucketObjects(access).put(key, head.whole, {
      ...(copy.contentType === undefined ? {} : { contentType: copy.contentType }),
    });
    return afterCommit(access, key, object, mayKeep);
  }
  const incoming = incomingKey(key);
  const object = await uploadStream(access, incoming, head.rest, copy.contentType);
  if (mayKeep && !(await mayKeep())) {
    await deleteObjects(access.s3, access.bucket, [incoming]);
    return { kind: 'not-kept' };
  }
  await promote(access.s3, access.bucket, incoming, key);
  return afterCommit(access, key, object, mayKeep);
}

/** OPT-5's second look, after the copy reached `key`: a takedown that landed meanwhile removes it. */
async function afterCommit(
  access: BucketAccess,
  key: string,
  object: StreamedObject,
  mayKeep: (() => Promise<boolean>) | undefined,
): Promise<VerifiedCopy> {
  if (mayKeep && !(await mayKeep())) {
    await deleteObjects(access.s3, access.bucket, [key]);
    return { kind: 'not-kept' };
  }
  return { kind: 'stored', object };
}

/**
 * Reads `body` up to `limit` bytes: the whole body when it ends within them, else a stream of all of it
 * (the chunks read so far, then the rest) — each chunk held only until it is passed on. The body's own
 * error (RESPONSE_TOO_LARGE, BODY_INCOMPLETE …) rejects, or fails the returned stream.
 */
async function readHead(body: Readable, limit: number): Promise<{ whole: Buffer } | { rest: Readable }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  while (size <= limit) {
    const next = await reader.next();
    if (next.done) return { whole: Buffer.concat(chunks, size) };
    chunks.push(next.value);
    size += next.value.length;
  }
  async function* all(): AsyncGenerator<Buffer> {
    try {
      for (let chunk = chunks.shift(); chunk !== undefined; chunk = chunks.shift()) yield chunk;
      for (let next = await reader.next(); !next.done; next = await reader.next()) yield next.value;
    } finally {
      // An upload that fails on our side stops reading: the body is released (destroyed), not left open.
      await reader.return?.();
    }
  }
  return { rest: Readable.from(all(), { objectMode: false }) };
}

/**
 * Copy, then delete: the live key changes in one step from the old copy to the new one. A crash after
 * the copy leaves only the incoming object behind (overwritten by the next fetch, or expired).
 */
async function promote(s3: S3Client, bucket: string, from: string, to: string): Promise<void> {
  await new BucketObjects({ s3, bucket }).move(from, to);
}

/** Errors raised by the fetcher's body stream carry a code and the URL; S3 errors do not. */
function isFetcherError(error: unknown): boolean {
  const e = error as { code?: unknown; url?: unknown };
  return typeof e?.code === 'string' && typeof e.url === 'string';
}
