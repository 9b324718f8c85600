/**
 * Byte handling and percent-normalisation shared by the parser and the matcher.
 *
 * robots.txt is a byte format: keys are ASCII, values may hold any octets. Internally a line is a
 * "binary string" (one char per byte, 0x00–0xFF), so non-ASCII octets are percent-encoded exactly
 * as they appear in the file, even when they are not valid UTF-8 (RFC 9309 §2.2.2).
 */
import { RobotsInputError } from './errors';

const utf8Encoder = new TextEncoder();
// ignoreBOM: a U+FEFF inside a value must survive decoding (see conformance/README.md, "JS trap").
const utf8Decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** UTF-8 bytes of a string input; bytes stay as they are. */
export function toBytes(input: string | Uint8Array): Uint8Array {
  return typeof input === 'string' ? utf8Encoder.encode(input) : input;
}

/** Bytes [start, end) as a binary string (one char per byte). */
export function bytesToBinary(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = '';
  // Chunked so String.fromCharCode never gets more arguments than the engine allows.
  const chunkBytes = 8192;
  for (let i = start; i < end; i += chunkBytes) {
    out += String.fromCharCode(...bytes.subarray(i, Math.min(end, i + chunkBytes)));
  }
  return out;
}

/** A binary string decoded as UTF-8 for display (invalid sequences become U+FFFD). */
export function binaryToDisplay(binary: string): string {
  if (!/[^\x00-\x7f]/.test(binary)) return binary;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return utf8Decoder.decode(bytes);
}

const HEX = '0123456789ABCDEF';

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

function percentEncoded(byte: number): string {
  return '%' + HEX[byte >> 4] + HEX[byte & 15];
}

/** RFC 3986 §2.3 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~". */
function isUnreserved(byte: number): boolean {
  return (
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) ||
    (byte >= 0x30 && byte <= 0x39) ||
    byte === 0x2d ||
    byte === 0x2e ||
    byte === 0x5f ||
    byte === 0x7e
  );
}

/**
 * Octets that cannot stand literally in a URI (RFC 3986 §2: controls, space, non-ASCII and the
 * unsafe `"<>\^`{|}`), plus `'`, which the WHATWG URL parser (undici) encodes in queries. Encoding
 * them on both sides makes the literal and the %-encoded form equivalent, as RFC 9309 §2.2.2 wants
 * for non-ASCII octets.
 */
function mustEncode(byte: number): boolean {
  if (byte <= 0x20 || byte >= 0x7f) return true;
  switch (byte) {
    case 0x22: // "
    case 0x27: // '
    case 0x3c: // <
    case 0x3e: // >
    case 0x5c: // \
    case 0x5e: // ^
    case 0x60: // `
    case 0x7b: // {
    case 0x7c: // |
    case 0x7d: // }
      return true;
    default:
      return false;
  }
}

// Quick pre-check: strings without any of these characters are already normalised.
const NEEDS_WORK = /[%*$\x00-\x20\x7f-\uffff"'<>\\^`{|}]/;

/**
 * Canonical form for comparison (RFC 9309 §2.2.2): `%xx` of an unreserved character is decoded,
 * every other escape gets upper-case hex (RFC 3986 §6.2.2.1), characters from {@link mustEncode}
 * are encoded. `mode` decides what `*` and `$` mean:
 * - `pattern`: `*` stays a wildcard, a final `$` stays the end anchor, any other `$` is a literal
 *   and becomes `%24`;
 * - `url`: literal `*` and `$` become `%2A` / `%24` (RFC 9309 §2.2.3: a pattern matches them only
 *   in their encoded form, and they must never act as wildcards).
 *
 * Input must be a binary string (see file header; chars above 0xFF are not expected); the
 * output is ASCII.
 */
export function percentNormalize(binary: string, mode: 'pattern' | 'url'): string {
  if (!NEEDS_WORK.test(binary)) return binary;
  let out = '';
  const length = binary.length;
  for (let i = 0; i < length; i++) {
    const code = binary.charCodeAt(i);
    if (code === 0x25 && i + 2 < length) {
      const high = hexValue(binary.charCodeAt(i + 1));
      const low = hexValue(binary.charCodeAt(i + 2));
      if (high >= 0 && low >= 0) {
        const byte = high * 16 + low;
        out += isUnreserved(byte) ? String.fromCharCode(byte) : percentEncoded(byte);
        i += 2;
        continue;
      }
    }
    if (mustEncode(code)) {
      out += percentEncoded(code);
    } else if (code === 0x2a && mode === 'url') {
      out += '%2A';
    } else if (code === 0x24 && (mode === 'url' || i !== length - 1)) {
      out += '%24';
    } else {
      out += binary[i];
    }
  }
  return out;
}

/** Percent-normalised pattern from a value given as text (encoded as UTF-8 first). */
export function normalizePattern(value: string): string {
  return percentNormalize(bytesToBinary(toBytes(value)), 'pattern');
}

/**
 * The part of a URL that robots.txt rules are matched against (RFC 9309 §2.2.2): path and query,
 * without the fragment, percent-normalised. Parsed with the WHATWG URL parser — the one undici
 * uses — so we judge the path that is actually requested (dot segments resolved, `\` → `/`).
 * Accepts an absolute http(s) URL or a path starting with `/`.
 */
export function matchTarget(url: string | URL): string {
  let parsed: URL;
  try {
    parsed =
      typeof url !== 'string'
        ? new URL(url.href)
        : url.startsWith('/') && !url.startsWith('//')
          ? new URL(url, 'http://robots.invalid')
          : new URL(url);
  } catch {
    throw new RobotsInputError(`not an absolute http(s) URL or a path: ${JSON.stringify(String(url))}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new RobotsInputError(`robots.txt applies to http(s) URLs only: ${JSON.stringify(parsed.href)}`);
  }
  parsed.hash = '';
  // `search` is empty both for "no query" and for a bare "?"; keep the "?" like Google does.
  const query = parsed.search !== '' ? parsed.search : parsed.href.endsWith('?') ? '?' : '';
  const path = parsed.pathname === '' ? '/' : parsed.pathname;
  return percentNormalize(bytesToBinary(toBytes(path + query)), 'url');
}
