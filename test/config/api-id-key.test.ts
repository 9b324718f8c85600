import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  apiIdKey,
  ensureApiIdKey,
  installApiIdKey,
  parseEnv,
  resetApiIdKey,
  resetUpstashCredentialsCache,
  warmRuntime,
} from '../../shared/config';
import { isIngestorError } from '../../shared/errors';
import { apiIdHash, apiObjectPath, idHash } from '../../shared/mirror';
import { logger } from '../../shared/observability';
import { type FakeSecretsManager, startFakeSecretsManager } from '../support/secrets-manager';

/**
 * Issue 25 point 5 (OPT-5): the mirror's ids are HMAC-SHA-256 of the origin id under a per-deployment
 * key — from the secret the stack generates (read through Powertools over a loopback server speaking the
 * Secrets Manager protocol; Secrets Manager itself is never reached), or locally from a file generated
 * once. The key is read once, never logged, never quoted by an error.
 */
const ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:mandari-ingestor/api-id-key-QwErTy';
const KEY_A = 'Hq7Zr2Kd9Wv4Mx8Np3Ls6Tb1Yc5Fg0Ju7Ae2Ro9Ik4Ub8Ez3Sy6On1Vh5Xm0Gt';
const KEY_B = 'Pz4Lk9Ds2Qa7Wm1Nc6Xe3Rb8Tv5Yh0Uf7Jg2Io9Ka4Sl1Dm6Zn3Xb8Cv5Bq0Wr';
const PAPER = 'https://ris.example.de/oparl/paper/4711';

let setupKey: string;
beforeAll(() => {
  setupKey = apiIdKey().toString('utf8');
});
afterEach(() => {
  resetApiIdKey();
  installApiIdKey(setupKey);
});

describe('keyed mirror ids (pure)', () => {
  it('ids differ between keys, repeat under one key, and are never the bare SHA-256 of the origin id', () => {
    installApiIdKey(KEY_A);
    const a = apiIdHash(PAPER);
    expect(apiIdHash(PAPER)).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{40}$/);
    expect(apiObjectPath('src', 'paper', PAPER)).toBe(`/oparl/v1/src/paper/${a}`);
    installApiIdKey(KEY_B);
    const b = apiIdHash(PAPER);
    expect(b).not.toBe(a);
    for (const id of [a, b]) expect(id).not.toBe(idHash(PAPER));
    // Neighbouring origin ids share nothing either (the unkeyed hash was already unordered; the point is
    // that nobody without the key can compute any of them).
    expect(apiIdHash(`${PAPER.slice(0, -1)}2`).slice(0, 12)).not.toBe(b.slice(0, 12));
  });

  it('without a key no id is derived: API_ID_KEY_MISSING, never an unkeyed fallback', async () => {
    resetApiIdKey();
    expect(() => apiIdHash(PAPER)).toThrow(expect.objectContaining({ code: 'API_ID_KEY_MISSING' }));
    await expect(ensureApiIdKey({})).rejects.toMatchObject({ code: 'API_ID_KEY_MISSING' });
  });

  it.each([
    ['too short', 'Hq7Zr2Kd9Wv4Mx8Np3Ls'],
    ['punctuation pasted in', `${KEY_A.slice(0, 40)}"; ${KEY_A.slice(40)}`],
    ['no text', 42],
  ])('a malformed key is refused without quoting it: %s', (_name, key) => {
    let error: unknown;
    try {
      installApiIdKey(key as string);
    } catch (e) {
      error = e;
    }
    expect(isIngestorError(error, 'API_ID_KEY_MALFORMED')).toBe(true);
    const text = `${String(error)} ${(error as Error).stack ?? ''} ${JSON.stringify(error)}`;
    if (typeof key === 'string') for (const w of windowsOf(key, 6)) expect(text).not.toContain(w);
  });
});

describe('the key from Secrets Manager (AWS) and from the data folder (local)', () => {
  let sm: FakeSecretsManager;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    sm = await startFakeSecretsManager(ARN, KEY_A);
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
    resetUpstashCredentialsCache();
    sm.setValue(KEY_A);
  });

  it('read once per process (a warm function builds again, the key is not read again), and never logged', async () => {
    resetApiIdKey();
    const env = () => parseEnv({ INGESTOR_API_ID_KEY_SECRET_ARN: ARN });
    const { captured, stop } = captureOutput();
    const before = sm.requests;
    try {
      const runtime = warmRuntime(env, async () => ({ close: async () => undefined }));
      await runtime.get();
      runtime.configure(async () => ({ close: async () => undefined }));
      await runtime.get();
      await ensureApiIdKey(env());
      const id = apiIdHash(PAPER);
      // What a function logs about its environment and its ids, as on-call sees it (warn: shown locally too).
      logger.warn('runtime ready', { env: env(), id });
    } finally {
      stop();
    }
    expect(sm.requests - before).toBe(1);
    installApiIdKey(KEY_A);
    const expected = apiIdHash(PAPER);
    expect(captured.join('')).toContain(expected);
    for (const w of windowsOf(KEY_A, 6)) expect(captured.join('')).not.toContain(w);
  });

  it('an unreadable secret fails loudly, is not cached, and no error carries the key', async () => {
    resetApiIdKey();
    sm.failNext(1);
    const source = { INGESTOR_API_ID_KEY_SECRET_ARN: ARN };
    const error = await ensureApiIdKey(source).catch((e: unknown) => e);
    expect(isIngestorError(error, 'API_ID_KEY_UNREADABLE')).toBe(true);
    await ensureApiIdKey(source);
    expect(apiIdKey().toString('utf8')).toBe(KEY_A);
    sm.setValue('short "and" quoted');
    resetApiIdKey();
    resetUpstashCredentialsCache();
    const malformed = await ensureApiIdKey(source).catch((e: unknown) => e);
    expect(isIngestorError(malformed, 'API_ID_KEY_MALFORMED')).toBe(true);
    expect(String(malformed)).not.toContain('quoted');
  });

  it('locally: a key file is generated once (owner-only), kept, and agreed on by processes starting at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'api-id-key-'));
    try {
      const file = join(dir, 'nested', 'api-id-key');
      resetApiIdKey();
      // Two loaders at once (two CLIs starting together) end with one key.
      const { ensureApiIdKey: again } = await import('../../shared/config/api-id-key');
      await Promise.all([
        ensureApiIdKey({ INGESTOR_API_ID_KEY_FILE: file }),
        again({ INGESTOR_API_ID_KEY_FILE: file }),
      ]);
      const first = apiIdHash(PAPER);
      const text = await readFile(file, 'utf8');
      expect(text.trim()).toMatch(/^[0-9a-f]{64}$/);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // A later process reads the same key: the same ids.
      resetApiIdKey();
      await ensureApiIdKey({ INGESTOR_API_ID_KEY_FILE: file });
      expect(apiIdHash(PAPER)).toBe(first);
      expect(await readFile(file, 'utf8')).toBe(text);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function captureOutput(): { captured: string[]; stop: () => void } {
  const captured: string[] = [];
  const capture =
    (write: typeof process.stdout.write) =>
    (chunk: unknown, ...rest: unknown[]): boolean => {
      captured.push(String(chunk));
      return (write as (c: unknown, ...r: unknown[]) => boolean)(chunk, ...rest);
    };
  // Bound before the spies replace them (else the spy would call itself).
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture(stdoutWrite));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture(stderrWrite));
  return {
    captured,
    stop: () => {
      out.mockRestore();
      err.mockRestore();
    },
  };
}

/** Every substring of `text` of length `n` (a longer leaked substring contains one of them). */
function windowsOf(text: string, n: number): string[] {
  const out = new Set<string>();
  for (let i = 0; i + n <= text.length; i += 1) out.add(text.slice(i, i + n));
  return [...out];
}
