import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseEnv } from '../../shared/config/env';
import {
  resetSecretsProvider,
  resetUpstashCredentialsCache,
  UPSTASH_SECRET_MAX_AGE_S,
  upstashCredentials,
} from '../../shared/config/secrets';
import { warmRuntime } from '../../shared/config/warm-runtime';
import { isIngestorError } from '../../shared/errors';
import { logger } from '../../shared/observability/logger';
import { type FakeSecretsManager, startFakeSecretsManager } from '../support/secrets-manager';

/**
 * The Upstash token from Secrets Manager (README "Deploy", docs/operations.md "Secrets"), read through
 * Powertools Parameters (`getSecret`) on the real SDK client. Secrets Manager itself is never reached:
 * the SDK's endpoint is a loopback server speaking the Secrets Manager JSON protocol
 * (`AWS_ENDPOINT_URL_SECRETS_MANAGER`, honoured by the SDK's endpoint resolution).
 */
const ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:mandari-ingestor/upstash-token-AbCdEf';
const TOKEN_A = 'AZx1QkVnWmRlOTRiNjE3ZGFhY2I0ZGY4OTYwOGQ1';
const TOKEN_B = 'AZx1QkVnYmMyODk0NDNjMjFlNDQ2YzhjZmE2N2Jm';

describe('Upstash secret (Powertools Parameters over a loopback Secrets Manager)', () => {
  let sm: FakeSecretsManager;
  const saved: Record<string, string | undefined> = {};
  const testEnv = () =>
    parseEnv({ UPSTASH_REDIS_REST_URL: 'https://eu1-test.upstash.io', UPSTASH_SECRET_ARN: ARN });

  beforeAll(async () => {
    sm = await startFakeSecretsManager(ARN, TOKEN_A);
    const vars = {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.url,
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'AKIDLOOPBACKONLY',
      AWS_SECRET_ACCESS_KEY: 'loopback-only',
    };
    for (const [k, v] of Object.entries(vars)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await sm?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
    resetUpstashCredentialsCache();
    sm.setValue(TOKEN_A);
  });

  it('reads the token once and serves it from the cache within its max age', async () => {
    const before = sm.requests;
    expect(await upstashCredentials(testEnv())).toEqual({
      url: 'https://eu1-test.upstash.io',
      token: TOKEN_A,
    });
    expect(await upstashCredentials(testEnv())).toEqual({
      url: 'https://eu1-test.upstash.io',
      token: TOKEN_A,
    });
    expect(sm.requests - before).toBe(1);
  });

  it('a failed fetch is not kept: the next invocation asks again and gets the token', async () => {
    sm.failNext(1);
    const before = sm.requests;
    const first = await upstashCredentials(testEnv()).catch((e: unknown) => e);
    expect(isIngestorError(first, 'SECRET_UNREADABLE')).toBe(true);
    expect(await upstashCredentials(testEnv())).toMatchObject({ token: TOKEN_A });
    expect(sm.requests - before).toBe(2);
  });

  it(`a rotated token is picked up once the cached one is older than ${UPSTASH_SECRET_MAX_AGE_S} s`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 2, 2, 9, 0, 0));
    expect(await upstashCredentials(testEnv())).toMatchObject({ token: TOKEN_A });
    sm.setValue(TOKEN_B);
    vi.setSystemTime(Date.now() + (UPSTASH_SECRET_MAX_AGE_S - 1) * 1000);
    expect(await upstashCredentials(testEnv())).toMatchObject({ token: TOKEN_A });
    vi.setSystemTime(Date.now() + 2_000);
    expect(await upstashCredentials(testEnv())).toMatchObject({ token: TOKEN_B });
  });

  it('{"token": …} is read as well as the bare token', async () => {
    sm.setValue(JSON.stringify({ token: TOKEN_B }));
    expect(await upstashCredentials(testEnv())).toMatchObject({ token: TOKEN_B });
  });

  describe('warm instance runtime', () => {
    const fakeRuntime = (token: string | undefined) => ({
      token,
      closed: false,
      close: async () => undefined,
    });

    it('a build that failed on the secret is retried by the next invocation, not kept', async () => {
      let builds = 0;
      const runtime = warmRuntime(testEnv, async () => {
        builds += 1;
        return fakeRuntime((await upstashCredentials(testEnv()))?.token);
      });
      sm.failNext(1);
      await expect(runtime.get()).rejects.toMatchObject({ code: 'SECRET_UNREADABLE' });
      expect((await runtime.get()).token).toBe(TOKEN_A);
      expect(await runtime.get()).toBe(await runtime.get());
      expect(builds).toBe(1);
    });

    it('a rotated token closes the old runtime and builds a new one', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.UTC(2026, 2, 2, 9, 0, 0));
      const closed: string[] = [];
      const runtime = warmRuntime(testEnv, async () => {
        const token = (await upstashCredentials(testEnv()))?.token ?? '';
        return { token, close: async () => void closed.push(token) };
      });
      expect((await runtime.get()).token).toBe(TOKEN_A);
      sm.setValue(TOKEN_B);
      vi.setSystemTime(Date.now() + (UPSTASH_SECRET_MAX_AGE_S + 1) * 1000);
      expect((await runtime.get()).token).toBe(TOKEN_B);
      await vi.waitFor(() => expect(closed).toEqual([TOKEN_A]));
    });

    it('a failed re-check keeps the runtime that works', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.UTC(2026, 2, 2, 9, 0, 0));
      const runtime = warmRuntime(testEnv, async () => fakeRuntime('built'));
      const first = await runtime.get();
      sm.failNext(1);
      vi.setSystemTime(Date.now() + (UPSTASH_SECRET_MAX_AGE_S + 1) * 1000);
      expect(await runtime.get()).toBe(first);
    });
  });

  describe('a malformed secret leaves no part of itself in any log line or error message', () => {
    // Key names and values chosen to share no 4 characters with the log schema, so any hit is a leak.
    const malformed: [string, string][] = [
      ['JSON without the expected field', '{"Qzrw":"Hv7MbXk2PqL9sT4wYc8N"}'],
      ['JSON that does not parse', '{"token": "Hv7MbXk2PqL9sT4wYc8N'],
      ['JSON whose field holds no text', '{"token": 937461825}'],
      ['JSON where a plain token is expected, nested', '{"token": {"Zq": "Hv7MbXk2PqL9sT4wYc8N"}}'],
      ['a token with a space and quotes pasted in', 'Hv7MbXk2 "PqL9sT4wYc8N"'],
    ];

    it.each(malformed)('%s', async (_name, secret) => {
      sm.setValue(secret);
      const captured: string[] = [];
      const capture =
        (write: typeof process.stdout.write) =>
        (chunk: unknown, ...rest: unknown[]): boolean => {
          captured.push(String(chunk));
          return (write as (c: unknown, ...r: unknown[]) => boolean)(chunk, ...rest);
        };
      const stdoutWrite = process.stdout.write.bind(process.stdout);
      const stderrWrite = process.stderr.write.bind(process.stderr);
      const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture(stdoutWrite));
      const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture(stderrWrite));
      let error: unknown;
      try {
        // As a function handler meets it: the warm runtime's build, logged by the project logger.
        const runtime = warmRuntime(testEnv, async () => ({ close: async () => undefined }));
        error = await runtime.get().catch((e: unknown) => e);
        logger.error('runtime failed', { error });
        logger.error('runtime failed', { error: String(error) });
      } finally {
        out.mockRestore();
        err.mockRestore();
      }
      expect(isIngestorError(error, 'SECRET_MALFORMED')).toBe(true);
      const texts = [...captured, ...messagesOf(error)];
      // the capture worked: the log lines are there
      expect(captured.join('')).toContain('SECRET_MALFORMED');
      const leaks = windowsOf(secret, 4).filter((w) => texts.some((t) => t.includes(w)));
      expect(leaks).toEqual([]);
    });
  });
});

/**
 * Issue 29 item 5: test files share worker processes. Powertools keeps one default Secrets Manager provider
 * per process, its SDK client bound to the endpoint of the moment it was built; clearing the cached values
 * keeps that client. The setup file (test/support/process-state.ts) drops the provider, so the next file
 * asks its own peer.
 */
describe('the secrets provider, per process in production and per file in the tests', () => {
  const vars = [
    'AWS_ENDPOINT_URL_SECRETS_MANAGER',
    'AWS_REGION',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
  ];
  const saved = Object.fromEntries(vars.map((k) => [k, process.env[k]]));
  const peers: FakeSecretsManager[] = [];
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetSecretsProvider();
    await Promise.all(peers.map((p) => p.close()));
  });

  it('RATE-7: a cleared cache still asks the first peer; a reset provider asks the one configured now', async () => {
    const first = await startFakeSecretsManager(ARN, TOKEN_A);
    const second = await startFakeSecretsManager(ARN, TOKEN_B);
    peers.push(first, second);
    Object.assign(process.env, {
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'AKIDLOOPBACKONLY',
      AWS_SECRET_ACCESS_KEY: 'loopback-only',
    });
    const env = () =>
      parseEnv({ UPSTASH_REDIS_REST_URL: 'https://eu1-test.upstash.io', UPSTASH_SECRET_ARN: ARN });
    resetSecretsProvider();
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = first.url;
    expect(await upstashCredentials(env())).toMatchObject({ token: TOKEN_A });

    // The next test file's peer: values forgotten, provider kept — the old endpoint answers.
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = second.url;
    resetUpstashCredentialsCache();
    expect(await upstashCredentials(env())).toMatchObject({ token: TOKEN_A });
    expect([first.requests, second.requests]).toEqual([2, 0]);

    resetSecretsProvider();
    expect(await upstashCredentials(env())).toMatchObject({ token: TOKEN_B });
    expect([first.requests, second.requests]).toEqual([2, 1]);
  });
});

/** Every substring of `text` of length `n` (a longer leaked substring contains one of them). */
function windowsOf(text: string, n: number): string[] {
  const out = new Set<string>();
  for (let i = 0; i + n <= text.length; i += 1) out.add(text.slice(i, i + n));
  return [...out];
}

/** Message, stack and string form of an error and of every cause behind it, and its own fields. */
function messagesOf(error: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 10; depth += 1) {
    const err = e as { message?: unknown; stack?: unknown; cause?: unknown };
    out.push(String(e), String(err.message ?? ''), String(err.stack ?? ''), JSON.stringify(e) ?? '');
    e = err.cause;
  }
  return out;
}
