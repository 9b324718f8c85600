import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { IngestorEnv } from './env';
import { ConfigError } from './errors';

/**
 * The Upstash REST credentials: URL from the environment, token from the environment (local) or from
 * Secrets Manager (AWS: `UPSTASH_SECRET_ARN`), fetched once per cold start. `undefined` = no shared store
 * configured: slots fall back to process-local throttling (RATE-7).
 */
export interface UpstashCredentials {
  url: string;
  token: string;
}

let cached: Promise<UpstashCredentials | undefined> | undefined;

export function upstashCredentials(e: IngestorEnv): Promise<UpstashCredentials | undefined> {
  cached ??= resolve(e);
  return cached;
}

async function resolve(e: IngestorEnv): Promise<UpstashCredentials | undefined> {
  if (!e.UPSTASH_REDIS_REST_URL) return undefined;
  if (e.UPSTASH_REDIS_REST_TOKEN) return { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN };
  if (!e.UPSTASH_SECRET_ARN) {
    throw new ConfigError(
      'UPSTASH_REDIS_REST_URL is set but neither UPSTASH_REDIS_REST_TOKEN nor UPSTASH_SECRET_ARN',
      [{ field: 'UPSTASH_SECRET_ARN', message: 'is required with UPSTASH_REDIS_REST_URL' }],
    );
  }
  const client = new SecretsManagerClient({ region: e.AWS_REGION });
  try {
    const res = await client.send(new GetSecretValueCommand({ SecretId: e.UPSTASH_SECRET_ARN }));
    const raw = res.SecretString?.trim() ?? '';
    // Accept a bare token or {"token": "..."}; the value itself is never logged.
    const token = raw.startsWith('{') ? String((JSON.parse(raw) as { token?: unknown }).token ?? '') : raw;
    if (token === '')
      throw new ConfigError('the Upstash secret is empty', [
        { field: 'UPSTASH_SECRET_ARN', message: 'secret has no token' },
      ]);
    return { url: e.UPSTASH_REDIS_REST_URL, token };
  } finally {
    client.destroy();
  }
}

export function resetUpstashCredentialsCache(): void {
  cached = undefined;
}
