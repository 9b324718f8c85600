import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import {
  ContentEncodingError,
  FetchError,
  FetchTimeoutError,
  NetworkError,
  ResponseTooLargeError,
} from './errors';

/**
 * Response bodies with limits enforced while streaming (STYLE): wire bytes are counted against the
 * declared Content-Length (a lie → BODY_INCOMPLETE) and the limit; decoded bytes (gzip, deflate, br)
 * against the limit again, so a decompression bomb stops after `maxBytes` of output, not after
 * inflating gigabytes in memory.
 */

export interface BodyLimits {
  url: string;
  maxBytes: number;
  /** robots.txt (ROB-5): keep the first `maxBytes` and stop reading instead of failing. */
  truncate: boolean;
  /** The Content-Encoding header, e.g. `gzip` or `gzip, br`; undefined = identity. */
  contentEncoding: string | undefined;
  /** The Content-Length header as a number, when present and valid. */
  contentLength: number | undefined;
  /** Aborting destroys the body with `signal.reason` (the whole-body deadline, a caller's cancel). */
  signal?: AbortSignal;
}

/** Parsed Content-Length, undefined when absent or not a plain non-negative integer. */
export function parseContentLength(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Decoders for a Content-Encoding list, in the order to apply them (the last coding first). */
function decodersFor(url: string, contentEncoding: string | undefined): Transform[] {
  if (contentEncoding === undefined) return [];
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  return codings.reverse().map((coding) => {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return createGunzip();
      case 'deflate':
        return createDeflateDecoder();
      case 'br':
        return createBrotliDecompress();
      default:
        throw new ContentEncodingError(url, `unsupported Content-Encoding "${coding}"`);
    }
  });
}

/**
 * HTTP "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2), but some servers send raw
 * deflate; the first two bytes tell which (a zlib header is divisible by 31, method 8).
 */
function createDeflateDecoder(): Transform {
  let inner: Transform | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (!inner) {
        const zlibWrapped =
          chunk.length >= 2 &&
          ((chunk[0] ?? 0) & 0x0f) === 8 &&
          (((chunk[0] ?? 0) << 8) | (chunk[1] ?? 0)) % 31 === 0;
        inner = zlibWrapped ? createInflate() : createInflateRaw();
        inner.on('data', (data: Buffer) => this.push(data));
        inner.on('error', (error) => this.destroy(error));
      }
      if (inner.write(chunk)) callback();
      else inner.once('drain', () => callback());
    },
    flush(callback) {
      if (!inner) {
        callback();
        return;
      }
      inner.once('end', () => callback());
      inner.end();
    },
  });
}

/** Counts wire bytes; enforces the limit (unless truncating) and the declared length at the end. */
class WireCounter extends Transform {
  bytes = 0;
  constructor(private readonly limits: BodyLimits) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    const { contentLength } = this.limits;
    if (contentLength !== undefined && this.bytes > contentLength) {
      callback(
        new NetworkError(this.limits.url, 'more bytes than Content-Length declared', 'BODY_INCOMPLETE'),
      );
      return;
    }
    // Without an encoding the decoded limit below is the same check; with one, the wire may not
    // be larger than the decoded limit either (compressed data is never legitimately larger).
    if (!this.limits.truncate && this.bytes > this.limits.maxBytes) {
      callback(new ResponseTooLargeError(this.limits.url, this.limits.maxBytes, 'received'));
      return;
    }
    callback(null, chunk);
  }
  override _flush(callback: TransformCallback): void {
    const { contentLength } = this.limits;
    if (contentLength !== undefined && this.bytes < contentLength) {
      callback(
        new NetworkError(
          this.limits.url,
          `body ended after ${this.bytes} of ${contentLength} declared bytes`,
          'BODY_INCOMPLETE',
        ),
      );
      return;
    }
    callback();
  }
}

/** Counts decoded bytes and fails past the limit (stream mode; buffer mode truncates itself). */
class DecodedLimiter extends Transform {
  bytes = 0;
  constructor(
    private readonly url: string,
    private readonly maxBytes: number,
    private readonly encoded: boolean,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(new ResponseTooLargeError(this.url, this.maxBytes, this.encoded ? 'decoded' : 'received'));
      return;
    }
    callback(null, chunk);
  }
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // The consumer of a file stream sees the fetcher's error types, not a socket's.
    callback(error ? (bodyError(this.url, error) as Error) : null);
  }
}

/**
 * Maps an error raised while reading a body to the fetcher's types: our own errors pass, zlib
 * errors are CONTENT_ENCODING, everything else (socket closed early, length mismatch) is an
 * incomplete body.
 */
export function bodyError(url: string, error: unknown): unknown {
  if (error instanceof FetchError) return error;
  const code = (error as { code?: unknown }).code;
  // undici's idle timer between chunks (the whole-body deadline arrives as a FetchTimeoutError).
  if (code === 'UND_ERR_BODY_TIMEOUT') return new FetchTimeoutError(url, 'body', 0, error);
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_BROTLI'))) {
    return new ContentEncodingError(url, (error as Error).message, error);
  }
  return new NetworkError(url, error, 'BODY_INCOMPLETE');
}

function decodedPipeline(raw: Readable, limits: BodyLimits, tail: Transform[]): Readable {
  const decoders = decodersFor(limits.url, limits.contentEncoding);
  const streams = [raw, new WireCounter(limits), ...decoders, ...tail];
  // pipeline destroys every stage when one fails or the last one is destroyed early.
  const last = pipeline(streams as unknown as [Readable, Transform], () => {}) as unknown as Readable;
  const { signal } = limits;
  if (signal) {
    const abort = () => last.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) abort();
    else {
      signal.addEventListener('abort', abort, { once: true });
      last.once('close', () => signal.removeEventListener('abort', abort));
    }
  }
  return last;
}

/** Resolves when `stream` has data to read or has ended; rejects on its error. Leaves no listeners. */
function readableOrEnd(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      stream.off('readable', onReady);
      stream.off('end', onReady);
      stream.off('close', onClose);
      stream.off('error', onError);
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      // A stream closed without 'end' was destroyed; its error (if any) comes through `errored`.
      if (stream.errored) reject(stream.errored);
      else resolve();
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    stream.on('readable', onReady);
    stream.on('end', onReady);
    stream.on('close', onClose);
    stream.on('error', onError);
  });
}

/**
 * Destroy a body we stop reading. undici's body emits an AbortError when destroyed before its end; with
 * no listener that would be an uncaught exception that ends the whole process (a Lambda instance).
 */
export function abandonBody(stream: Readable): void {
  if (stream.listenerCount('error') === 0) stream.on('error', () => {});
  stream.destroy();
}

export interface BufferedBody {
  body: Buffer;
  /** True when the limit cut the body (robots.txt only). */
  truncated: boolean;
}

/** Reads a whole body into memory within the limits. */
export async function readBodyToBuffer(raw: Readable, limits: BodyLimits): Promise<BufferedBody> {
  if (!limits.truncate && limits.contentLength !== undefined && limits.contentLength > limits.maxBytes) {
    abandonBody(raw);
    throw new ResponseTooLargeError(limits.url, limits.maxBytes, 'declared');
  }
  const encoded = decodersFor(limits.url, limits.contentEncoding).length > 0;
  const decoded = decodedPipeline(raw, limits, []);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of decoded as AsyncIterable<Buffer>) {
      if (size + chunk.length > limits.maxBytes) {
        if (!limits.truncate) {
          throw new ResponseTooLargeError(limits.url, limits.maxBytes, encoded ? 'decoded' : 'received');
        }
        chunks.push(chunk.subarray(0, limits.maxBytes - size));
        size = limits.maxBytes;
        abandonBody(decoded);
        abandonBody(raw);
        return { body: Buffer.concat(chunks, size), truncated: true };
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    abandonBody(decoded);
    abandonBody(raw);
    throw bodyError(limits.url, error);
  }
  return { body: Buffer.concat(chunks, size), truncated: false };
}

/**
 * A limited, decoding stream over a body, for large files: the limit fails the stream
 * (RESPONSE_TOO_LARGE) as soon as it is passed. `sniffBytes` of the start are read ahead (and put
 * back) so the caller can look at them before handing the stream on (HTML instead of a file).
 */
export async function openLimitedStream(
  raw: Readable,
  limits: BodyLimits,
  sniffBytes: number,
): Promise<{ stream: Readable; head: Buffer }> {
  if (limits.contentLength !== undefined && limits.contentLength > limits.maxBytes) {
    abandonBody(raw);
    throw new ResponseTooLargeError(limits.url, limits.maxBytes, 'declared');
  }
  const encoded = decodersFor(limits.url, limits.contentEncoding).length > 0;
  const stream = decodedPipeline(raw, limits, [new DecodedLimiter(limits.url, limits.maxBytes, encoded)]);
  const parts: Buffer[] = [];
  let size = 0;
  try {
    while (size < sniffBytes && !stream.readableEnded && !stream.destroyed) {
      const chunk = stream.read() as Buffer | null;
      if (chunk !== null) {
        parts.push(chunk);
        size += chunk.length;
        continue;
      }
      await readableOrEnd(stream);
    }
    if (stream.errored) throw stream.errored;
  } catch (error) {
    abandonBody(stream);
    throw bodyError(limits.url, error);
  }
  const head = Buffer.concat(parts, size);
  if (stream.readableEnded) {
    // The whole (small) body was read while sniffing; hand it out as a fresh stream.
    return { stream: Readable.from([head]), head };
  }
  if (head.length > 0) stream.unshift(head);
  return { stream, head };
}

/** Reads at most `maxBytes` of a body for diagnosis (error pages, redirects) and drops the rest. */
export async function readSnippet(raw: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of raw as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) break;
    }
  } catch {
    // A broken error page is no reason to hide the status it came with.
  } finally {
    abandonBody(raw);
  }
  return Buffer.concat(chunks, size).subarray(0, maxBytes).toString('utf8');
}
