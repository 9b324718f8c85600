import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { IngestorError } from '../errors';

/**
 * The per-deployment key of the mirror's ids (issue 25 point 5, OPT-5). An id of the OParl API over the
 * mirror — and the mirror index's sort key, its list tie-break and its S3 key, which are the same hash —
 * is HMAC-SHA-256 of the origin id under this key (shared/mirror `apiIdHash`), not a bare SHA-256: the origin's ids are sequential
 * and guessable, so a bare hash of a taken-down object's id (its deletion stub) named the object to
 * anyone who hashed a guess. Without the key nobody can tell which origin id an API id stands for.
 *
 * Where the key comes from (read once per process, then cached; never logged, never in an error):
 * - AWS: the secret the stack generates (`INGESTOR_API_ID_KEY_SECRET_ARN`), read through Powertools;
 * - local: a file generated once under the data folder (`INGESTOR_API_ID_KEY_FILE`, `.data/api-id-key`).
 * A process that derives an id without a key fails (`API_ID_KEY_MISSING`) rather than fall back to an
 * unkeyed hash: a silent fallback would publish guessable ids and split the index in two.
 */
export class ApiIdKeyError extends IngestorError {
  constructor(
    code: 'API_ID_KEY_MISSING' | 'API_ID_KEY_UNREADABLE' | 'API_ID_KEY_MALFORMED',
    message: string,
  ) {
    // No cause: an SDK or parse error could quote the value.
    super(code, message, { retryable: code === 'API_ID_KEY_UNREADABLE' });
  }
}

/** 256 bits, as HMAC-SHA-256's block suggests; the stack generates 64 characters. */
export const API_ID_KEY_MIN_CHARS = 32;

/** What a key may hold: the stack's generated secret (letters, digits) or the local file's hex. */
const KEY_PATTERN = /^[A-Za-z0-9]+$/;

let installed: Buffer | undefined;

/** Pure check of a key's text; the refusal never quotes it. */
export function parseApiIdKey(text: unknown): Buffer {
  const key = typeof text === 'string' ? text.trim() : '';
  if (key.length < API_ID_KEY_MIN_CHARS || !KEY_PATTERN.test(key))
    throw new ApiIdKeyError(
      'API_ID_KEY_MALFORMED',
      `the API id key must be at least ${API_ID_KEY_MIN_CHARS} letters or digits (docs/operations.md, API id key)`,
    );
  return Buffer.from(key, 'utf8');
}

/** Makes `key` the key of this process's ids (the loaders below; tests and benches with a key of their own). */
export function installApiIdKey(key: string): void {
  installed = parseApiIdKey(key);
}

/** Forgets the installed key (tests). */
export function resetApiIdKey(): void {
  installed = undefined;
}

export function hasApiIdKey(): boolean {
  return installed !== undefined;
}

/** The installed key (for shared/mirror `apiIdHash` alone); none = `API_ID_KEY_MISSING`. */
export function apiIdKey(): Buffer {
  if (installed === undefined)
    throw new ApiIdKeyError(
      'API_ID_KEY_MISSING',
      'no API id key loaded: set INGESTOR_API_ID_KEY_SECRET_ARN (AWS) or INGESTOR_API_ID_KEY_FILE (local)',
    );
  return installed;
}

export interface ApiIdKeySource {
  /** AWS: the Secrets Manager secret the stack generates. */
  INGESTOR_API_ID_KEY_SECRET_ARN?: string | undefined;
  /** Local: a file holding the key, created on first use. */
  INGESTOR_API_ID_KEY_FILE?: string | undefined;
}

/**
 * Loads the key once per process (a warm Lambda instance keeps it: the key never rotates, as every id
 * would change with it). Already installed = nothing read.
 */
export async function ensureApiIdKey(source: ApiIdKeySource): Promise<void> {
  if (installed !== undefined) return;
  if (source.INGESTOR_API_ID_KEY_SECRET_ARN) {
    let raw: unknown;
    try {
      raw = await getSecret(source.INGESTOR_API_ID_KEY_SECRET_ARN);
    } catch {
      throw new ApiIdKeyError(
        'API_ID_KEY_UNREADABLE',
        'the API id key could not be read from Secrets Manager',
      );
    }
    installed ??= parseApiIdKey(raw);
    return;
  }
  if (source.INGESTOR_API_ID_KEY_FILE) {
    installed ??= parseApiIdKey(await localKey(source.INGESTOR_API_ID_KEY_FILE));
    return;
  }
  throw new ApiIdKeyError(
    'API_ID_KEY_MISSING',
    'no API id key configured: set INGESTOR_API_ID_KEY_SECRET_ARN (AWS) or INGESTOR_API_ID_KEY_FILE (local)',
  );
}

/**
 * The local key file's text, generated on first use. Written whole to a file of its own and linked
 * into place: two processes starting at once agree on one key, and neither reads a half-written file.
 */
async function localKey(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dirname(path), { recursive: true });
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  try {
    await link(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(draft);
  }
  return readFile(path, 'utf8');
}
