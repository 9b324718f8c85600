/**
 * Issue 28: what one mirror API response weighs on the wire as CloudFront serves it — pure, so the
 * arithmetic is tested apart (test/cost/api-bytes.test.ts); the sizes come from `npm run bench --
 * api-bytes` (bench/api-bytes.ts: the real API over a mirror the real engine synced from the demo
 * council).
 *
 * CloudFront compresses an answer on the way out (infra/stack.ts `compress: true`, gzip and Brotli in
 * the cache key) when the viewer's Accept-Encoding names gzip or br, the object is 1,000 B to 10,000,000 B
 * and its type is compressible (application/json is) — Brotli when the viewer accepts both
 * (Amazon CloudFront Developer Guide, "Serve compressed files"). CloudFront bills the bytes it sends,
 * headers included (its access log's `sc-bytes`, "including headers").
 */

/** What the model billed an API response before the measurement (issue 18's assumption). */
export const API_BYTES_PER_RESPONSE_ASSUMED = 20_000;

/** CloudFront compresses objects of at least this many bytes … */
export const CLOUDFRONT_COMPRESS_MIN_BYTES = 1_000;
/** … and at most this many. */
export const CLOUDFRONT_COMPRESS_MAX_BYTES = 10_000_000;

/**
 * The headers CloudFront adds to every answer (the four it documents on a viewer response; values of
 * the documented shape): a fixed part of each response's bytes, beside the origin's own headers.
 */
export const CLOUDFRONT_ADDED_HEADERS: Readonly<Record<string, string>> = {
  'x-cache': 'Hit from cloudfront',
  via: '1.1 0123456789abcdef0123456789abcdef.cloudfront.net (CloudFront)',
  'x-amz-cf-pop': 'FRA56-P5',
  'x-amz-cf-id': 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQr==',
};

/** One answer's sizes: its header block (HTTP/1.1 text) and its body raw, gzip'd and Brotli'd. */
export interface ResponseSizes {
  headerBytes: number;
  rawBytes: number;
  gzipBytes: number;
  brotliBytes: number;
}

/** Shares of requests by what the viewer's Accept-Encoding allows (CloudFront's choice: br over gzip). */
export interface ViewerEncodings {
  brotli: number;
  gzip: number;
  none: number;
}

export class ApiBytesError extends Error {
  readonly code = 'API_BYTES_SHARES';
}

/** The bytes of HTTP/1.1 header lines: `name: value` and CRLF each. */
export function headerLinesBytes(headers: Iterable<[string, string]>): number {
  let bytes = 0;
  for (const [name, value] of headers) bytes += Buffer.byteLength(`${name}: ${value}\r\n`);
  return bytes;
}

/** The bytes of an HTTP/1.1 header block: status line, header lines and the blank line. */
export function headerBlockBytes(status: string, headers: Iterable<[string, string]>): number {
  return Buffer.byteLength(`HTTP/1.1 ${status}\r\n\r\n`) + headerLinesBytes(headers);
}

/** What CloudFront sends for one answer in one encoding: headers, and the body compressed if it may be. */
export function servedBytes(r: ResponseSizes, encoding: 'br' | 'gzip' | 'identity'): number {
  const compressible =
    r.rawBytes >= CLOUDFRONT_COMPRESS_MIN_BYTES && r.rawBytes <= CLOUDFRONT_COMPRESS_MAX_BYTES;
  const body =
    !compressible || encoding === 'identity' ? r.rawBytes : encoding === 'br' ? r.brotliBytes : r.gzipBytes;
  return r.headerBytes + body;
}

/** Mean bytes a response of `samples` (each equally likely) over the viewers' mix of encodings. */
export function bytesPerResponse(samples: readonly ResponseSizes[], viewers: ViewerEncodings): number {
  const total = viewers.brotli + viewers.gzip + viewers.none;
  if (Math.abs(total - 1) > 1e-9 || Math.min(viewers.brotli, viewers.gzip, viewers.none) < 0)
    throw new ApiBytesError(`viewer shares must be ≥ 0 and sum to 1 (got ${total})`);
  if (samples.length === 0) throw new ApiBytesError('no response sizes');
  const each = samples.map(
    (r) =>
      viewers.brotli * servedBytes(r, 'br') +
      viewers.gzip * servedBytes(r, 'gzip') +
      viewers.none * servedBytes(r, 'identity'),
  );
  return each.reduce((sum, b) => sum + b, 0) / each.length;
}

/** The mean of several answers' sizes, field by field (a bench's summary of one kind of request). */
export function meanSizes(samples: readonly ResponseSizes[]): ResponseSizes {
  const n = Math.max(1, samples.length);
  const sum = (of: (r: ResponseSizes) => number) => Math.round(samples.reduce((s, r) => s + of(r), 0) / n);
  return {
    headerBytes: sum((r) => r.headerBytes),
    rawBytes: sum((r) => r.rawBytes),
    gzipBytes: sum((r) => r.gzipBytes),
    brotliBytes: sum((r) => r.brotliBytes),
  };
}
