import { clearCaches } from '@aws-lambda-powertools/parameters';
import { DEFAULT_PROVIDERS } from '@aws-lambda-powertools/parameters/base';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import type { IngestorEnv } from './env';
import { ConfigError, SecretError } from './errors';

/**
 * The Upstash REST credentials: URL from the environment, token from the environment (local) or from
 * Secrets Manager (AWS: `UPSTASH_SECRET_ARN`) through Powertools Parameters. `undefined` = no shared
 * store configured: slots fall back to process-local throttling (RATE-7).
 *
 * The value is cached for `UPSTASH_SECRET_MAX_AGE_S` (a rotated token is picked up after that); a
 * failed fetch is not cached, so the next invocation asks again. Nothing of the value ever reaches an
 * error message or a log line.
 */
export interface UpstashCredentials {
  url: string;
  token: string;
}

/** How long a fetched Upstash token is used before Secrets Manager is asked again (rotation). */
export const UPSTASH_SECRET_MAX_AGE_S = 300;

/** An Upstash REST credential: base64-like, no spaces or quotes (anything else is a pasting mistake). */
const TOKEN_PATTERN = /^[A-Za-z0-9+/=_.-]+$/;

export async function upstashCredentials(e: IngestorEnv): Promise<UpstashCredentials | undefined> {
  if (!e.UPSTASH_REDIS_REST_URL) return undefined;
  if (e.UPSTASH_REDIS_REST_TOKEN) return { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN };
  if (!e.UPSTASH_SECRET_ARN) {
    throw new ConfigError(
      'UPSTASH_REDIS_REST_URL is set but neither UPSTASH_REDIS_REST_TOKEN nor UPSTASH_SECRET_ARN',
      [{ field: 'UPSTASH_SECRET_ARN', message: 'is required with UPSTASH_REDIS_REST_URL' }],
    );
  }
  let raw: unknown;
  try {
    raw = await getSecret(e.UPSTASH_SECRET_ARN, { maxAge: UPSTASH_SECRET_MAX_AGE_S });
  } catch (error) {
    // The SDK's error names the secret and the failure, never its value.
    throw new SecretError('SECRET_UNREADABLE', 'the Upstash secret could not be read from Secrets Manager', {
      cause: error,
    });
  }
  return { url: e.UPSTASH_REDIS_REST_URL, token: restCredentialIn(raw) };
}

/**
 * The token in a secret value: a bare token or `{"token": "…"}`. Every refusal is a fixed message
 * without a cause: a JSON.parse error would quote the value.
 */
export function restCredentialIn(raw: unknown): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') throw malformed('is empty or no text');
  let token: unknown = text;
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw malformed('starts like JSON but is no valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || !('token' in parsed)) {
      throw malformed('is JSON without the expected field');
    }
    token = (parsed as { token: unknown }).token;
    if (typeof token !== 'string') throw malformed('holds no text in the expected field');
  }
  if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) {
    throw malformed('holds characters no REST credential has (letters, digits and + / = _ . - only)');
  }
  return token;
}

function malformed(what: string): SecretError {
  // Worded without the field name or JSON punctuation: nothing here can echo a part of the value.
  return new SecretError(
    'SECRET_MALFORMED',
    `the Upstash secret ${what} (expected the REST credential alone, or JSON holding it as docs/operations.md says)`,
  );
}

/** Forgets every cached secret value (tests; an operator's forced refresh). */
export function resetUpstashCredentialsCache(): void {
  clearCaches();
}

/**
 * Forgets Powertools' default Secrets Manager provider itself, not only its values: the provider is a
 * module singleton whose SDK client keeps the endpoint and credentials of the moment it was built. A
 * process has one for its life in production; test files sharing a process each start with none
 * (test/support/process-state.ts), or the second file's secrets would be asked of the first file's peer.
 */
export function resetSecretsProvider(): void {
  clearCaches();
  delete DEFAULT_PROVIDERS.secrets;
}
