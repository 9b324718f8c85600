import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openLocalRuntime } from '../../cli/local/runtime';
import { type ChangeEvent, LOCAL_CHANGES_FILE } from '../../shared/changes';
import { MirrorStore } from '../../shared/mirror';
import { runCliInProcess } from '../support/cli-in-process';
import { spawnCli } from '../support/cli-process';
import { getJson, paperWrite, seedListedBody } from '../support/mirror-api';
import { freePort } from '../support/redis';

/**
 * The mirror's operator commands as an operator runs them, over one local data folder (issue 16): two
 * sources with two papers each, written through the local runtime as a sync writes them.
 */
const SOURCES = ['alpha', 'beta'] as const;
const bodyOf = (sourceId: string) => `https://ris-${sourceId}.test/oparl/body/1`;

describe('mirror commands in local mode (issue 16)', () => {
  let dir: string;
  let data: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-mirror-cli-'));
    data = join(dir, 'data');
    // The default is what is under test: no file named by the environment.
    vi.stubEnv('INGESTOR_CHANGE_FILE', undefined);
    const rt = await openLocalRuntime({ dataDir: data });
    try {
      const mirror = new MirrorStore(rt.clients, { bucket: rt.env.BUCKET, stateTable: rt.env.STATE_TABLE });
      for (const sourceId of SOURCES) {
        await seedListedBody(rt, sourceId, bodyOf(sourceId));
        for (const n of [1, 2])
          await mirror.writeLive(paperWrite(sourceId, bodyOf(sourceId), n, new Date().toISOString()));
      }
    } finally {
      await rt.close();
    }
  }, 60_000);

  afterAll(async () => {
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  it('the change feed goes to <data dir>/changes.jsonl when INGESTOR_CHANGE_FILE is not set', async () => {
    const events = (await readFile(join(data, LOCAL_CHANGES_FILE), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ChangeEvent);
    expect(events.map((e) => `${e.kind} ${e.source} ${e.type}`).sort()).toEqual([
      'new alpha paper',
      'new alpha paper',
      'new beta paper',
      'new beta paper',
    ]);
  });

  it('ingestor objects --source S lists only that source; with --json the last line is one JSON object', async () => {
    const all = await runCliInProcess(['objects', '--data', data, '--json']);
    expect(all.code).toBe(0);
    expect((all.json.objects as unknown[]).length).toBe(4);
    const one = await runCliInProcess(['objects', '--source', 'beta', '--data', data, '--json']);
    expect(one.code).toBe(0);
    const last = JSON.parse(one.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(last).toEqual(one.json);
    const rows = last.objects as { sourceId: string; id: string; state: string }[];
    expect(rows.map((r) => `${r.sourceId} ${r.state} ${r.id}`).sort()).toEqual([
      'beta live https://ris-beta.test/oparl/paper/1',
      'beta live https://ris-beta.test/oparl/paper/2',
    ]);
    expect(last.counts).toEqual({ paper: 2 });
    const unknown = await runCliInProcess(['objects', '--source', 'gamma', '--data', data, '--json']);
    expect(unknown.code).not.toBe(0);
  }, 60_000);

  it('ingestor serve --port P serves the API on P and prints its System URL with P', async () => {
    const port = await freePort();
    let child: ChildProcess | undefined;
    let announce: (url: string) => void = () => {};
    const announced = new Promise<string>((resolve) => {
      announce = resolve;
    });
    let printed = '';
    const run = spawnCli(['serve', '--port', String(port), '--data', data], {
      onSpawn: (c) => {
        child = c;
        c.stdout?.on('data', (d) => {
          printed += d;
          const url = /OParl API over the mirror: (\S+)/.exec(printed)?.[1];
          if (url !== undefined) announce(url);
        });
      },
    });
    try {
      const url = await Promise.race([
        announced,
        run.then((r) => Promise.reject(new Error(`serve ended before listening: ${r.stderr}`))),
      ]);
      expect(url).toBe(`http://127.0.0.1:${port}/oparl/v1/system`);
      const system = await getJson(url);
      expect(system.json.id).toBe(url);
      const bodies = await getJson(system.json.body as string);
      expect((bodies.json.data as { name: string }[]).map((b) => b.name).sort()).toEqual([...SOURCES]);
    } finally {
      child?.kill('SIGTERM');
    }
    const ended = await run;
    expect(ended.code, ended.stderr).toBe(0);
  }, 60_000);

  it('issue 28: ingestor migrate mirror-table — refused before deploy 1 (phase state), copies in dual, then `objects` in own reads the Mirror table; --delete-old empties State', async () => {
    const refused = await runCliInProcess(['migrate', 'mirror-table', '--data', data, '--json']);
    expect(refused.code).not.toBe(0);
    vi.stubEnv('MIRROR_TABLE_PHASE', 'dual');
    const copied = await runCliInProcess([
      'migrate',
      'mirror-table',
      '--rate',
      '1000',
      '--data',
      data,
      '--json',
    ]);
    expect(copied.code, copied.stdout).toBe(0);
    expect(copied.json).toMatchObject({ step: 'copy', done: true, counts: { written: 4 } });
    vi.stubEnv('MIRROR_TABLE_PHASE', 'own');
    const deleted = await runCliInProcess([
      'migrate',
      'mirror-table',
      '--delete-old',
      '--data',
      data,
      '--json',
    ]);
    expect(deleted.json).toMatchObject({
      step: 'delete-old',
      done: true,
      counts: { written: 4, missing: 0 },
    });
    // State holds none of them now: what `objects` lists comes from the Mirror table.
    const listed = await runCliInProcess(['objects', '--data', data, '--json']);
    expect((listed.json.objects as unknown[]).length).toBe(4);
    // Issue 28: `mirror rebuild` over the moved table finds every record's item there already.
    const neither = await runCliInProcess(['mirror', 'rebuild', '--data', data, '--json']);
    expect(neither.code).not.toBe(0);
    const rebuilt = await runCliInProcess(['mirror', 'rebuild', '--all', '--data', data, '--json']);
    expect(rebuilt.code, rebuilt.stdout).toBe(0);
    expect(rebuilt.json).toMatchObject({
      scope: 'all',
      done: true,
      counts: { scanned: 4, present: 4, written: 0, unreadable: 0 },
    });
    vi.stubEnv('MIRROR_TABLE_PHASE', 'state');
    const before = await runCliInProcess(['objects', '--data', data, '--json']);
    expect((before.json.objects as unknown[]).length).toBe(0);
    const refusedRebuild = await runCliInProcess(['mirror', 'rebuild', '--all', '--data', data, '--json']);
    expect(refusedRebuild.code).not.toBe(0);
  }, 60_000);
});
