import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandFetches } from '../../cli/aws';
import { openLocalRuntime } from '../../cli/local/runtime';
import { SyncStateStore } from '../../shared/engine';
import { idHash } from '../../shared/mirror';
import { putSourceItem } from '../../shared/store';
import { runCliInProcess } from '../support/cli-in-process';

/**
 * `ingestor broadcasts add|status|poll|activate|deactivate` (OTH-5, OTH-3) in-process on a local data
 * folder (dynalite and s3rver on disk), as an operator runs them.
 */
const run = runCliInProcess;

describe('ingestor broadcasts', () => {
  let dir: string;
  const data = () => ['--data', join(dir, 'data')];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-broadcasts-'));
    // A council source with one body, as `sources add` and its first sync leave them.
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
          name: 'Stadt Musterstadt',
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

  it('OTH-5: add stores an inactive broadcast source for a body; status shows it; it is no council source', async () => {
    const added = await run([
      'broadcasts',
      'add',
      '--body',
      'musterstadt',
      '--url',
      'https://stream.example/rat/status',
      '--live-pointer',
      '/live',
      '--stream-pointer',
      '/stream/hls',
      ...data(),
      '--json',
    ]);
    expect(added).toMatchObject({
      code: 0,
      json: {
        id: 'broadcast-musterstadt',
        active: false,
        body: 'musterstadt',
        councilSourceId: 'ris-a',
        format: 'json',
      },
    });

    const status = await run(['broadcasts', 'status', ...data(), '--json']);
    expect(status.json.broadcasts).toEqual([
      expect.objectContaining({
        broadcastId: 'broadcast-musterstadt',
        valid: true,
        active: false,
        polls: 0,
        errors: 0,
        streamUrl: 'https://stream.example/rat/status',
      }),
    ]);
    const councils = await run(['sources', 'list', ...data(), '--json']);
    expect((councils.json.sources as { sourceId: string }[]).map((s) => s.sourceId)).toEqual(['ris-a']);
  });

  it('OTH-3: activate and deactivate switch one broadcast source; an unknown id is an error', async () => {
    expect(
      (await run(['broadcasts', 'activate', 'broadcast-musterstadt', ...data(), '--json'])).json,
    ).toEqual({
      id: 'broadcast-musterstadt',
      active: true,
    });
    const status = await run(['broadcasts', 'status', ...data(), '--json']);
    expect(status.json.broadcasts).toEqual([expect.objectContaining({ active: true })]);
    await run(['broadcasts', 'deactivate', 'broadcast-musterstadt', ...data()]);
    const after = await run(['broadcasts', 'status', ...data(), '--json']);
    expect(after.json.broadcasts).toEqual([expect.objectContaining({ active: false })]);
    const unknown = await run(['broadcasts', 'activate', 'ris-a', ...data(), '--json']);
    expect(unknown).toMatchObject({ code: 1, json: { error: 'BROADCAST_NOT_FOUND' } });
  });

  it('OTH-5: poll without an open meeting window sends nothing', async () => {
    await run(['broadcasts', 'activate', 'broadcast-musterstadt', ...data()]);
    const poll = await run(['broadcasts', 'poll', ...data(), '--json']);
    expect(poll).toMatchObject({ code: 0, json: { broadcasts: 1, requests: 0 } });
    expect((poll.json.outcomes as { reason: string }[])[0]?.reason).toBe('no meeting window open (OTH-5)');
  });

  it('OTH-5: bad input is refused with a clear error and nothing is written', async () => {
    const badPointer = await run([
      'broadcasts',
      'add',
      '--body',
      'musterstadt',
      '--id',
      'broadcast-two',
      '--url',
      'https://stream.example/s',
      '--live-pointer',
      'live',
      ...data(),
      '--json',
    ]);
    expect(badPointer).toMatchObject({ code: 1, json: { error: 'CONFIG_INVALID' } });
    expect(String(badPointer.json.message)).toMatch(/livePointer must be an RFC 6901 JSON pointer/);
    expect((await run(['broadcasts', 'add', '--body', 'musterstadt', ...data(), '--json'])).code).toBe(2);
    const unknownBody = await run([
      'broadcasts',
      'add',
      '--body',
      'nirgendwo',
      '--url',
      'https://s.example/x.m3u8',
      ...data(),
      '--json',
    ]);
    expect(unknownBody.code).toBe(1);
    const status = await run(['broadcasts', 'status', ...data(), '--json']);
    expect((status.json.broadcasts as unknown[]).length).toBe(1);
  });

  it('OTH-2: under --aws only `broadcasts poll` fetches (it needs the shared slot store)', () => {
    expect(commandFetches(['broadcasts', 'poll'])).toBe(true);
    for (const sub of ['add', 'status', 'activate', 'deactivate'])
      expect(commandFetches(['broadcasts', sub])).toBe(false);
  });
});
