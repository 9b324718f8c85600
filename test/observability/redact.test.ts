import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalRuntime } from '../../cli/local/runtime';
import { SyncStateStore } from '../../shared/engine';
import type { FetchEvent } from '../../shared/fetch';
import { idHash } from '../../shared/mirror';
import {
  logRequestEvent,
  MetricsBuffer,
  REDACTED,
  redactUrl,
  redactUrlsIn,
} from '../../shared/observability';
import { putSourceItem } from '../../shared/store';
import { runCliInProcess } from '../support/cli-in-process';

/**
 * Issue 25 weak spot (OTH-4, B-3): request log lines and CLI output printed other fetches' URLs whole,
 * a geo service's or streaming provider's `?apikey=…` included (`broadcasts status --json`). One
 * redaction (shared/observability `redactUrl`) replaces every query value, the user info and the
 * fragment of those URLs; a council's own URLs stay as they are.
 */
const SECRET = 'k3yV4lu3Zq9';

describe('redactUrl (pure, hostile URLs)', () => {
  it.each([
    [
      'a query key',
      `https://geo.example/wfs?service=WFS&apikey=${SECRET}`,
      'https://geo.example/wfs?service=REDACTED&apikey=REDACTED',
    ],
    ['user info', `https://user:${SECRET}@stream.example/status`, 'https://REDACTED@stream.example/status'],
    [
      'a fragment token',
      `https://stream.example/s#access_token=${SECRET}`,
      'https://stream.example/s#REDACTED',
    ],
    ['a bare token as the query', `https://stream.example/s?${SECRET}`, 'https://stream.example/s?REDACTED'],
    [
      'a repeated, encoded key',
      `https://g.example/?a=1&apikey=${SECRET}&apikey=%20${SECRET}`,
      'https://g.example/?a=REDACTED&apikey=REDACTED&apikey=REDACTED',
    ],
    ['no URL at all, with a query', `not a url?apikey=${SECRET}#x`, 'not a url?apikey=REDACTED#REDACTED'],
    [
      'unparsable with user info',
      `https://u:${SECRET}@[bad/x?k=${SECRET}`,
      'https://REDACTED@[bad/x?k=REDACTED',
    ],
    [
      'a value with CR/LF (log forging)',
      `https://g.example/?k=${SECRET}\r\nINFO forged`,
      'https://g.example/?k=REDACTED',
    ],
    ['no query: unchanged', 'https://geo.example/wfs/layer', 'https://geo.example/wfs/layer'],
  ])('%s', (_name, url, expected) => {
    const shown = redactUrl(url);
    expect(shown).toBe(expected);
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toMatch(/[\r\n]/);
  });

  it('every URL inside a text (an error, a config problem), control characters escaped', () => {
    const text = `fetch failed at https://geo.example/wfs?apikey=${SECRET} (then http://x.example/?t=${SECRET})\nnext`;
    const shown = redactUrlsIn(text);
    expect(shown).toBe(
      `fetch failed at https://geo.example/wfs?apikey=${REDACTED} (then http://x.example/?t=${REDACTED})%0Anext`,
    );
  });
});

describe('request log lines (OTH-4)', () => {
  const event = (purpose: FetchEvent['purpose'], url: string): FetchEvent => ({
    kind: 'request',
    sourceId: 's',
    host: new URL(url).host,
    url,
    purpose,
    method: 'GET',
    attempt: 1,
    hop: 0,
    status: 500,
    durationMs: 3,
  });

  it("an other fetch's URL is redacted; a council's stays as it is (fails on the code before)", () => {
    const lines: Record<string, unknown>[] = [];
    const targets = {
      log: (_m: string, fields: Record<string, unknown>) => lines.push(fields),
      metrics: new MetricsBuffer(),
    };
    logRequestEvent(event('service', `https://geo.example/wfs?apikey=${SECRET}`), targets);
    const council = `https://ris.example.de/oparl/paper?body=1&page=2`;
    logRequestEvent(event('api', council), targets);
    expect(lines.map((l) => l.url)).toEqual(['https://geo.example/wfs?apikey=REDACTED', council]);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });
});

describe('ingestor broadcasts status (OTH-5)', () => {
  let dir: string;
  const data = () => ['--data', join(dir, 'data')];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-redact-'));
    const rt = await openLocalRuntime({ dataDir: join(dir, 'data') });
    try {
      await putSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, {
        sourceId: 'ris-a',
        systemUrl: 'https://ris.beispiel.de/oparl/system',
      });
      const bodyId = 'https://ris.beispiel.de/oparl/body/1';
      await new SyncStateStore(rt.clients, rt.env.STATE_TABLE, 'ris-a').upsertBody(
        {
          bodyKey: idHash(bodyId).slice(0, 16),
          id: bodyId,
          name: 'Stadt',
          lists: {},
          lastSeenAt: '2026-12-01T00:00:00.000Z',
        },
        'musterstadt',
      );
    } finally {
      await rt.close();
    }
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the stream URL without its apikey, text and JSON (fails on the code before)', async () => {
    const url = `https://stream.example/rat/status?apikey=${SECRET}&format=json`;
    const added = await runCliInProcess([
      'broadcasts',
      'add',
      '--body',
      'musterstadt',
      '--url',
      url,
      '--live-pointer',
      '/live',
      '--stream-pointer',
      '/stream/hls',
      ...data(),
      '--json',
    ]);
    expect(added.code).toBe(0);
    const json = await runCliInProcess(['broadcasts', 'status', ...data(), '--json']);
    expect(json.json.broadcasts).toEqual([
      expect.objectContaining({
        streamUrl: 'https://stream.example/rat/status?apikey=REDACTED&format=REDACTED',
      }),
    ]);
    const text = await runCliInProcess(['broadcasts', 'status', ...data()]);
    for (const out of [added, json, text]) expect(JSON.stringify(out)).not.toContain(SECRET);
  });
});
