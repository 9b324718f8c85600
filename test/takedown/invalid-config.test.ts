import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { tombstoneCommand } from '../../cli/commands/takedown';
import type { LocalRuntime } from '../../cli/local/runtime';
import { errorOutput } from '../../cli/output';
import { apiIdHash } from '../../shared/mirror';
import { setBodyListed } from '../../shared/onboarding';
import { TakedownRegistry } from '../../shared/takedown';
import { getJson, serveApi, stopServer } from '../support/mirror-api';
import { seededTestbed } from '../support/takedown';

/**
 * Issue 25 point 1, OPT-5: a municipality's takedown never depends on a config typo. A Sources item
 * made invalid by a hand edit still owns its host (its sourceId and systemUrl are read leniently): the
 * takedown is recorded for it, loudly; once the typo is fixed the next sync does not mirror the object
 * and the API does not serve it. Where an invalid item makes the owner unknowable, the command refuses
 * and names the item and its field. Real peers: dynalite, s3rver, the fake council on loopback, the
 * real sync engine, the CLI command against them.
 */
describe('OPT-5: tombstone --ids while a Sources item is invalid (hand edit)', () => {
  const t = seededTestbed();

  const runtime = (): LocalRuntime => ({
    env: t.bed.env,
    clients: t.bed.clients,
    dataDir: '',
    close: async () => undefined,
  });

  const setField = (sourceId: string, field: string, value: unknown) =>
    t.bed.clients.doc.send(
      new UpdateCommand({
        TableName: t.bed.env.SOURCES_TABLE,
        Key: { sourceId },
        UpdateExpression: 'SET #f = :v',
        ExpressionAttributeNames: { '#f': field },
        ExpressionAttributeValues: { ':v': value },
      }),
    );

  /** The command's loud log lines (one JSON object each), captured from console.warn. */
  async function withWarnings<T>(run: () => Promise<T>): Promise<{ value: T; warned: string[] }> {
    const warned: string[] = [];
    const original = console.warn;
    console.warn = (line: string) => warned.push(String(line));
    try {
      return { value: await run(), warned };
    } finally {
      console.warn = original;
    }
  }

  it('OPT-5: requestIntervalSeconds "five" — a paper not mirrored yet is recorded (exit 0, loud warning); after the fix the sync does not mirror it and the API does not serve it', async () => {
    const { s, koeln } = await t.seed('trust-typo');
    await setBodyListed(t.bed.clients.doc, s.deps.tables, 'koeln', {
      listed: true,
      sourceId: s.sourceId,
      by: 'test',
    });
    // Two papers the council publishes after the last sync: one taken down, one as the control.
    const [wanted, control] = s.council.mutate([
      { op: 'add', list: 'paper', body: 1 },
      { op: 'add', list: 'paper', body: 1 },
    ]) as [string, string];
    expect(await s.h.mirror.read(s.sourceId, 'paper', wanted)).toBeUndefined();
    await setField(s.sourceId, 'requestIntervalSeconds', 'five');

    const { value: down, warned } = await withWarnings(() => tombstoneCommand(runtime(), { ids: [wanted] }));

    // Before issue 25: exit 1, sourceIds [], registered [] and nothing said why.
    expect(down.exitCode).toBe(0);
    expect(down.json).toMatchObject({ sourceIds: [s.sourceId], registered: [wanted], notFound: [wanted] });
    const text = down.text.join('\n');
    expect(text).toContain(
      `Sources item ${s.sourceId} is invalid (requestIntervalSeconds: must be a number)`,
    );
    const line = warned
      .map((w) => JSON.parse(w))
      .find((w) => w.event === 'TAKEDOWN RECORDED FOR AN INVALID SOURCES ITEM');
    expect(line).toMatchObject({ sourceId: s.sourceId, ids: [wanted] });
    expect(line.problems).toContain('requestIntervalSeconds');
    const registry = new TakedownRegistry(t.bed.clients.doc, t.bed.env.STATE_TABLE);
    expect((await registry.items(s.sourceId)).map((i) => i.id)).toEqual([wanted]);

    // The typo fixed, the next sync reads every list again.
    await setField(s.sourceId, 'requestIntervalSeconds', 5);
    const report = await s.h.sync('full');
    expect(report.complete).toBe(true);
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', wanted)).toBeUndefined();
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', control)).toBeDefined();

    const api = await serveApi(t.bed);
    try {
      const base = `${api.base}/oparl/v1/${s.sourceId}`;
      expect((await getJson(`${base}/paper/${apiIdHash(control)}`)).status).toBe(200);
      expect((await getJson(`${base}/paper/${apiIdHash(wanted)}`)).status).toBe(404);
      const list = await getJson(`${base}/body/${apiIdHash(koeln.id)}/paper?limit=1000`);
      const served = (list.json.data as { id: string }[]).map((p) => p.id);
      expect(served).toContain(`${base}/paper/${apiIdHash(control)}`);
      expect(served).not.toContain(`${base}/paper/${apiIdHash(wanted)}`);
    } finally {
      await stopServer(api.server);
    }
  });

  it('OPT-5: an invalid item whose systemUrl cannot be read may own an id on an unknown host — the command refuses, naming the item and the field; ids it can place are recorded all the same', async () => {
    const { s } = await t.seed('trust-nourl');
    const [placed] = s.council.mutate({ op: 'add', list: 'paper', body: 1 }) as [string];
    const elsewhere = 'https://ris.elsewhere.example/oparl/paper/77';
    const broken = 'trust-broken-url';
    await t.bed.clients.doc.send(
      new PutCommand({
        TableName: t.bed.env.SOURCES_TABLE,
        Item: { sourceId: broken, systemUrl: 'htps//ris.elsewhere.example/oparl', active: true },
      }),
    );
    try {
      const { value: error, warned } = await withWarnings(() =>
        tombstoneCommand(runtime(), { ids: [placed, elsewhere] }).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );

      expect(error).toMatchObject({ code: 'TAKEDOWN_OWNER_UNKNOWN' });
      const { text } = errorOutput(error);
      expect(text).toContain(`takedown NOT recorded for ${elsewhere}`);
      expect(text).toContain(`Sources item "${broken}" is invalid (systemUrl:`);
      expect(text).toContain(`recorded meanwhile: ${placed}`);
      expect(warned.join('\n')).toContain('TAKEDOWN NOT RECORDED: OWNER UNKNOWN');
      const registry = new TakedownRegistry(t.bed.clients.doc, t.bed.env.STATE_TABLE);
      expect((await registry.items(s.sourceId)).map((i) => i.id)).toContain(placed);
    } finally {
      await t.bed.clients.doc.send(
        new DeleteCommand({ TableName: t.bed.env.SOURCES_TABLE, Key: { sourceId: broken } }),
      );
    }
  });

  it('OPT-5: with every item valid, an id no source owns is not recorded and the output says why (exit 1)', async () => {
    const { s } = await t.seed('trust-unowned');
    const elsewhere = 'https://ris.elsewhere.example/oparl/paper/78';
    const down = await tombstoneCommand(runtime(), { ids: [elsewhere], source: s.sourceId });
    expect(down.exitCode).toBe(1);
    expect(down.text.join('\n')).toContain(
      `NOT recorded — no source's systemUrl is on their host and no mirror holds them: ${elsewhere}`,
    );
  });
});
