import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalRuntime } from '../../cli/local/runtime';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { bodyKeyOf } from '../../shared/documents/keys';
import { bodySk, documentId, recordDocument, sourcePartition } from '../../shared/engine';
import { putSourceItem } from '../../shared/store/sources';
import { runCliInProcess } from '../support/cli-in-process';

const run = runCliInProcess;

/** The operator commands of issue 6 in local mode (`--data DIR --allow-loopback`), real pace. */
describe('CLI: files, deletion-check, photos, documents, files clear', () => {
  let dir: string;
  let council: FakeCouncil;
  const data = () => ['--data', join(dir, 'data'), '--allow-loopback', '--json'];
  let present: string;
  let missing: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-documents-cli-'));
    council = await startFakeCouncil({});
    // Seed the local state as the sync would leave it: a source, a listed body, two recorded files.
    const rt = await openLocalRuntime({ dataDir: join(dir, 'data'), allowLoopback: true });
    try {
      await putSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, {
        sourceId: 'demo-cli',
        systemUrl: council.systemUrl,
        active: true,
      });
      const bodyId = council.bodyUrl(1);
      await rt.clients.doc.send(
        new PutCommand({
          TableName: rt.env.STATE_TABLE,
          Item: {
            pk: sourcePartition('demo-cli'),
            sk: bodySk(bodyKeyOf(bodyId)),
            bodyKey: bodyKeyOf(bodyId),
            id: bodyId,
            name: 'Stadt',
            slug: 'stadt',
            listed: true,
            lists: {},
            firstSeenAt: new Date().toISOString(),
            lastSeenAt: new Date().toISOString(),
          },
        }),
      );
      present = `${council.url}/files/1/1.pdf`;
      missing = `${council.url}/files/1/999.pdf`;
      for (const url of [present, missing]) {
        await recordDocument(
          rt.clients,
          rt.env.DOCUMENTS_TABLE,
          { id: `${url}#f`, accessUrl: url },
          {
            sourceId: 'demo-cli',
            bodyId,
            listed: true,
            nowIso: new Date().toISOString(),
          },
        );
      }
    } finally {
      await rt.close();
    }
  }, 60_000);

  afterAll(async () => {
    await council?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('files --once --json: one pass, counts by outcome (DOC-3, DOC-5, DOC-2)', async () => {
    const { code, json } = await run(['files', '--once', ...data()]);
    expect(code).toBe(0);
    expect(json.files).toEqual({ stored: 1, 'gone-provisional': 1 });
    expect(json.text).toEqual({ extracted: 1 });
  });

  it('documents --json: url, state, attempts, nextAttemptAt, size, sha256, hasText, text (DOC-2 ladder)', async () => {
    const { code, json } = await run(['documents', '--source', 'demo-cli', ...data()]);
    expect(code).toBe(0);
    const rows = json.documents as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual([
        'url',
        'state',
        'attempts',
        'nextAttemptAt',
        'size',
        'sha256',
        'hasText',
        'text',
        'textError',
        'textAttempts',
      ]);
    }
    const stored = rows.find((r) => r.url === present);
    expect(stored).toMatchObject({
      state: 'stored',
      attempts: 1,
      hasText: true,
      size: expect.any(Number),
      text: 'extracted',
      textError: null,
      textAttempts: 1,
    });
    expect(stored?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.find((r) => r.url === missing)).toMatchObject({
      state: 'gone-provisional',
      attempts: 1,
      size: null,
      sha256: null,
      hasText: false,
      nextAttemptAt: expect.any(String),
    });
    const all = await run(['documents', ...data()]);
    expect((all.json.documents as unknown[]).length).toBe(2);
  });

  it('deletion-check --once --json and photos --once --json: nothing due yet, nothing asked', async () => {
    council.clearRequests();
    const deletion = await run(['deletion-check', '--once', ...data()]);
    expect(deletion).toMatchObject({ code: 0, json: { checks: {}, requests: 0 } });
    const photos = await run(['photos', '--once', ...data()]);
    expect(photos).toMatchObject({ code: 0, json: { photos: {} } });
    expect(council.requests.filter((r) => r.path.startsWith('/files/'))).toHaveLength(0);
  });

  it('files clear <fileId>: only blocked documents are cleared (DOC-6)', async () => {
    const { code, json } = await run(['files', 'clear', documentId(present), ...data()]);
    expect(code).toBe(1);
    expect(json).toMatchObject({ error: 'DOCUMENT_NOT_BLOCKED' });
    const unknown = await run(['files', 'clear', 'https://nowhere.example/x.pdf', ...data()]);
    expect(unknown.json).toMatchObject({ error: 'DOCUMENT_NOT_FOUND' });
  });
});
