import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type S3rver from 's3rver';

/** s3rver's object model (CommonJS, not in its typings): what a store's `getObject` answers. */
const S3Object = createRequire(import.meta.url)('s3rver/lib/models/object.js') as new (
  bucket: string,
  key: string,
  content: Readable | null,
  metadata: Record<string, unknown>,
) => { range?: { start: number; end: number } };

/** The part of s3rver's FilesystemStore this replaces or uses. */
interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  getMetadata(bucket: string, key: string): Promise<Record<string, unknown>>;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<unknown>;
  putObject(object: {
    bucket: string;
    key: string;
    content: Buffer | Readable;
    metadata: unknown;
  }): Promise<{ size: number; md5: string }>;
}

/**
 * S3 answers a GET with the whole object as it was before a PUT or after it, never a part. s3rver 3.7
 * writes an object in place (the file truncated, then filled, its PUT answered before the data is on
 * disk) and answers a GET with the file's size at `stat` time: a GET during a PUT of the same key got a
 * prefix of the new object with a matching Content-Length — the chaos bench's takedown-during-sync once
 * aborted on it ("Unterminated string in JSON at position 1168", the takedown reading a record the
 * sync was writing). Here a PUT is written to `staging` (same file system) and renamed into place once
 * complete, and a GET reads the one file it opened, its length taken from that file.
 */
export function makeObjectWritesAtomic(s3: S3rver, staging: string): void {
  const store = (s3 as unknown as { store: FilesystemStore }).store;
  let n = 0;
  store.putObject = async (object) => {
    const target = store.getResourcePath(object.bucket, object.key, 'object');
    await Promise.all([mkdir(dirname(target), { recursive: true }), mkdir(staging, { recursive: true })]);
    n += 1;
    const partial = join(staging, `${process.pid}-${n}`);
    const md5 = createHash('md5');
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    try {
      await pipeline(content, measure, createWriteStream(partial));
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
  store.getObject = async (bucket, key, options) => {
    let bytes: Buffer;
    let stored: Record<string, unknown>;
    try {
      const file = await open(store.getResourcePath(bucket, key, 'object'), 'r');
      try {
        bytes = await file.readFile();
      } finally {
        await file.close();
      }
      stored = await store.getMetadata(bucket, key);
    } catch (error) {
      // Deleted before or meanwhile: no such key (as s3rver answers).
      if ((error as { code?: string }).code === 'ENOENT') return null;
      throw error;
    }
    const metadata = {
      ...stored,
      etag: JSON.stringify(createHash('md5').update(bytes).digest('hex')),
      'content-length': bytes.length,
    };
    // s3rver's own range rules (stores/filesystem.js), over the bytes read.
    const lastByte = Math.max(0, bytes.length - 1);
    const ranged = options !== undefined && (options.start !== undefined || options.end !== undefined);
    const range = { start: options?.start ?? 0, end: Math.min(options?.end ?? Infinity, lastByte) };
    const satisfiable = range.start >= 0 && range.end >= range.start;
    const content = satisfiable ? Readable.from([bytes.subarray(range.start, range.end + 1)]) : null;
    const found = new S3Object(bucket, key, content, metadata);
    if (ranged) found.range = range;
    return found;
  };
}
