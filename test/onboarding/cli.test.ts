import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalRuntime } from '../../cli/local/runtime';
import { type FakeCouncil, robotsScripts, startFakeCouncil } from '../../demo';
import { SyncStateStore } from '../../shared/engine';
import { MirrorStore } from '../../shared/mirror';
import { fileKey, textKey } from '../../shared/mirror/keys';
import { bodyFieldsOf } from '../../shared/oparl/body-fields';
import { putSourceItem } from '../../shared/store/sources';
import { runCliInProcess } from '../support/cli-in-process';

const run = runCliInProcess;

describe('operator CLI: probe, sources add/import/set, bodies, tombstone, purge-deleted', () => {
  let dir: string;
  let unreachable: FakeCouncil;
  let n = 0;
  /** A fresh data folder per test: robots.txt state (ROB-5) persists in it. */
  const data = () => {
    n += 1;
    return ['--data', join(dir, `data-${n}`), '--allow-loopback'];
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-onb-cli-'));
    // robots.txt 503: every command costs exactly one request and no real pacing wait (ROB-7).
    unreachable = await startFakeCouncil({ robots: robotsScripts.unavailable });
  });
  afterAll(async () => {
    await unreachable.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('ONB-1: probe --json prints {"bodies":[…]} with requests, robots, oparl and comparison403', async () => {
    unreachable.clearRequests();
    const res = await run(['probe', `${unreachable.url}/`, ...data(), '--json']);
    expect(res.code).toBe(0);
    expect(res.json).toEqual({
      bodies: [
        expect.objectContaining({
          url: `${unreachable.url}/`,
          requests: 1,
          robots: expect.objectContaining({ state: 'unreachable', status: 503 }),
          oparl: null,
          comparison403: null,
          stoppedBy: 'robots-unreachable',
        }),
      ],
    });
    expect(unreachable.requests.map((r) => r.path)).toEqual(['/robots.txt']);
  });

  it('ONB-2 / ONB-3: sources add checks robots.txt first; unreachable → nothing else asked, stored inactive', async () => {
    unreachable.clearRequests();
    const res = await run(['sources', 'add', unreachable.systemUrl, '--id', 'unreach', ...data(), '--json']);
    expect(res).toMatchObject({
      code: 0,
      json: {
        sourceId: 'unreach',
        created: true,
        active: false,
        check: { ok: false, robots: 'unreachable', code: 'ROBOTS_UNREACHABLE' },
      },
    });
    expect(unreachable.requests.map((r) => r.path)).toEqual(['/robots.txt']);
  });

  it('ONB-3: sources import --activate (JSON and CSV); a refused row sets exit code 1', async () => {
    const d = data();
    const json = join(dir, 'sources.json');
    await writeFile(
      json,
      JSON.stringify([
        { systemUrl: unreachable.systemUrl, sourceId: 'imp-a', name: 'Stadt A' },
        { systemUrl: 'not a url', sourceId: 'imp-b' },
      ]),
    );
    const res = await run(['sources', 'import', json, '--activate', ...d, '--json']);
    expect(res.code).toBe(1);
    expect(res.json).toMatchObject({ created: 1, failed: 1 });
    const rows = res.json.sources as Record<string, unknown>[];
    // The System could not be read, so --activate does not switch it on (ONB-3, careful side).
    expect(rows[0]).toMatchObject({ sourceId: 'imp-a', created: true, active: false });
    expect(rows[1]).toMatchObject({ error: 'CONFIG_INVALID' });
    const csv = join(dir, 'sources.csv');
    // As German Excel saves it: Windows-1252. Read with a warning, the umlaut intact.
    await writeFile(
      csv,
      iconv.encode(
        `systemUrl;sourceId;name;requestIntervalSeconds\r\n${unreachable.systemUrl};imp-c;Köln;3\r\n`,
        'windows-1252',
      ),
    );
    const csvRes = await run(['sources', 'import', csv, ...d, '--json']);
    expect(csvRes).toMatchObject({
      code: 0,
      json: {
        created: 1,
        failed: 0,
        encoding: 'windows-1252',
        warnings: [expect.stringContaining('Windows-1252')],
      },
    });
    const shown = await run(['sources', 'show', 'imp-c', ...d, '--json']);
    expect(shown.json.item).toMatchObject({ name: 'Köln' });
  });

  it('OPT-4: sources set applies the knobs to every source on the same host; activation does not spread', async () => {
    const d = data();
    const base = unreachable.url; // 127.0.0.1:<port>
    const otherHost = base.replace('127.0.0.1', 'localhost');
    await run(['sources', 'add', `${base}/oparl/v1/system`, '--id', 'host-a', ...d]);
    await run(['sources', 'add', `${base}/other/oparl/system`, '--id', 'host-b', ...d]);
    await run(['sources', 'add', `${otherHost}/oparl/v1/system`, '--id', 'other-host', ...d]);

    const set = await run([
      'sources',
      'set',
      'host-a',
      'requestIntervalSeconds=5',
      'fileFetching=false',
      ...d,
      '--json',
    ]);
    expect(set.json).toMatchObject({ alsoUpdated: ['host-b'], notUpdated: [] });
    const only = await run(['sources', 'set', 'host-a', 'fullSyncMinDays=7', '--only', ...d, '--json']);
    expect(only.json.alsoUpdated).toBeUndefined();
    const activate = await run(['sources', 'activate', 'host-a', ...d, '--json']);
    expect(activate.json.alsoUpdated).toBeUndefined();
    await run(['sources', 'activate', 'host-b', ...d]);
    const deactivate = await run(['sources', 'deactivate', 'host-a', ...d, '--json']);
    expect(deactivate.json).toMatchObject({ alsoUpdated: ['host-b'] });

    const list = await run(['sources', 'list', ...d, '--json']);
    const byId = Object.fromEntries(
      (list.json.sources as { sourceId: string }[]).map((s) => [s.sourceId, s]),
    ) as Record<string, Record<string, unknown>>;
    expect(byId['host-b']).toMatchObject({ active: false, requestIntervalSeconds: 5, fileFetching: false });
    expect(byId['other-host']).toMatchObject({
      active: false,
      requestIntervalSeconds: 1,
      fileFetching: true,
    });
  });

  it('ONB-4 / OPT-2 / OPT-3: bodies, bodies list, tombstone --body, purge-deleted preview and --yes', async () => {
    const d = data();
    const dataDir = d[1] as string;
    // Seed: a source with one body, three mirrored objects of it, a document with copy and text.
    const rt = await openLocalRuntime({ dataDir });
    const sourceId = 'seeded';
    const bodyId = 'https://ris.example.de/oparl/body/1';
    try {
      await putSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, {
        sourceId,
        systemUrl: 'https://ris.example.de/oparl/system',
      });
      const body = {
        id: bodyId,
        type: 'https://schema.oparl.org/1.1/Body',
        name: 'Stadt Köln',
        shortName: 'Köln',
      };
      const fields = bodyFieldsOf(body, bodyId, '2026-01-01T00:00:00.000Z');
      if (!fields) throw new Error('no body fields');
      await new SyncStateStore({ doc: rt.clients.doc }, rt.env.STATE_TABLE, sourceId).upsertBody(
        fields.fields,
        fields.slugBase,
      );
      const mirror = new MirrorStore(rt.clients, { bucket: rt.env.BUCKET, stateTable: rt.env.STATE_TABLE });
      const objects = [
        { type: 'body', id: bodyId, object: body },
        { type: 'paper', id: 'https://ris.example.de/oparl/paper/1', object: { name: 'Vorlage' } },
        { type: 'file', id: 'https://ris.example.de/oparl/file/1', object: { name: 'Anlage' } },
      ];
      for (const o of objects) {
        await mirror.writeLive({
          sourceId,
          type: o.type,
          id: o.id,
          object: { ...o.object, id: o.id },
          sourceUrl: o.id,
          fetchedAt: '2026-01-01T00:00:00.000Z',
          hash: o.type,
          bodyId,
        });
      }
      await rt.clients.doc.send(
        new PutCommand({
          TableName: rt.env.DOCUMENTS_TABLE,
          Item: {
            docId: 'doc1',
            sourceId,
            bodyId,
            fileId: 'https://ris.example.de/oparl/file/1',
            url: 'x',
            listed: false,
          },
        }),
      );
      for (const key of [fileKey(sourceId, 'doc1'), textKey(sourceId, 'doc1')]) {
        await rt.clients.s3.send(new PutObjectCommand({ Bucket: rt.env.BUCKET, Key: key, Body: 'x' }));
      }
    } finally {
      await rt.close();
    }

    const bodies = await run(['bodies', ...d, '--json']);
    expect(bodies.json.bodies).toEqual([
      expect.objectContaining({ slug: 'koeln', sourceId, listed: false, takedown: false }),
    ]);
    expect((await run(['bodies', 'list', 'koeln', ...d, '--json'])).json).toMatchObject({
      slug: 'koeln',
      listed: true,
      outcome: 'now-listed',
      documents: 1,
    });

    const tomb = await run(['tombstone', '--body', 'koeln', '--note', 'Bitte der Stadt', ...d, '--json']);
    expect(tomb).toMatchObject({
      code: 0,
      json: { body: 'koeln', tombstoned: { body: 1, paper: 1, file: 1 }, documents: 1 },
    });
    expect((await run(['bodies', ...d, '--json'])).json.bodies).toEqual([
      expect.objectContaining({ slug: 'koeln', listed: false, takedown: true }),
    ]);

    const preview = await run(['purge-deleted', '--body', 'koeln', ...d, '--json']);
    expect(preview.json).toMatchObject({
      body: 'koeln',
      dryRun: true,
      counts: { body: 1, paper: 1, file: 1, files: 1, texts: 1 },
    });
    const purged = await run(['purge-deleted', '--body', 'koeln', '--yes', ...d, '--json']);
    expect(purged.json).toMatchObject({ body: 'koeln', dryRun: false });
    expect(purged.json.counts).toEqual(preview.json.counts);
    const after = await run(['purge-deleted', '--body', 'koeln', ...d, '--json']);
    expect(Object.values(after.json.counts as Record<string, number>).every((x) => x === 0)).toBe(true);
  });

  it('usage errors exit with 2', async () => {
    expect((await run(['tombstone', ...data()])).code).toBe(2);
    expect((await run(['purge-deleted', ...data()])).code).toBe(2);
    expect((await run(['bodies', 'list', ...data()])).code).toBe(2);
    expect((await run(['probe', ...data()])).code).toBe(2);
  });
});
