import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_CATALOGUE } from '../../shared/engine';
import { BODIES_TTL_MS } from '../../shared/mirror-api/constants';
import { LIST_INDEX, loadAllSources } from '../../shared/store';
import { tombstoneIds } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { getJson, type ServedMirror, seedServedMirror, serveApi, walkList } from '../support/mirror-api';
import { liveEntries } from '../support/takedown';

type Obj = Record<string, unknown>;

/** Every string in a JSON value with the key it sits under. */
function strings(value: unknown, key = ''): [string, string][] {
  if (typeof value === 'string') return [[key, value]];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, k));
  return [];
}

/** The one DynamoDB call of a list page: a Query of the State table's list index. */
const pageQuery = () => ({ command: 'Query', table: bed.env.STATE_TABLE, index: LIST_INDEX });
/** The list's counter (`pagination` counts): one GetItem per list, cached as long as the bodies. */
const counterRead = () => ({ command: 'GetItem', table: bed.env.STATE_TABLE });

let bed: AwsTestbed;
let m: ServedMirror;
let body: Obj;
let bodyOriginId: string;

beforeAll(async () => {
  bed = await startAwsTestbed();
  m = await seedServedMirror(bed, 'api');
  const system = await getJson(m.systemUrl);
  const bodies = await getJson(system.json.body as string);
  body = (bodies.json.data as Obj[])[0] as Obj;
  bodyOriginId = body['mandari:originId'] as string;
}, 120_000);

afterAll(async () => {
  await m?.close();
  await bed?.stop();
});

describe('OParl 1.1 API over the mirror (issue 16)', () => {
  it('one System; its body list holds the listed body only, not the unlisted one (ONB-4)', async () => {
    const system = await getJson(m.systemUrl);
    expect(system.status).toBe(200);
    expect(system.json).toMatchObject({
      id: m.systemUrl,
      type: 'https://schema.oparl.org/1.1/System',
      oparlVersion: 'https://schema.oparl.org/1.1/',
    });
    const bodies = await getJson(system.json.body as string);
    expect((bodies.json.data as Obj[]).map((b) => b.name)).toEqual(['Stadt Köln']);
    expect(body.id).toMatch(new RegExp(`^${m.base}/oparl/v1/${m.h.source.sourceId}/body/[0-9a-f]{40}$`));
    const same = await getJson(body.id as string);
    expect(same.json).toEqual(body);
  });

  it('every list of the body holds exactly the live mirrored objects of that type, paged by links.next, one Query per page (and its counter once); its counts are what the walk finds', async () => {
    const lists = LIST_CATALOGUE.filter((l) => typeof body[l.bodyField] === 'string');
    expect(lists.map((l) => l.list)).toEqual(
      expect.arrayContaining(['organization', 'person', 'meeting', 'paper', 'file']),
    );
    const live = await liveEntries(m.h, bodyOriginId);
    await getJson(m.systemUrl.replace(/system$/, 'body')); // the bodies cache warm (its clock stands still)
    for (const l of lists) {
      m.dynamoCalls.reset();
      const { objects, pages } = await walkList(`${body[l.bodyField]}?limit=20`);
      // Every DynamoDB call the reader made, at its client: one index Query per page, the counter once.
      expect(m.dynamoCalls.calls(), l.list).toEqual([
        pageQuery(),
        counterRead(),
        ...Array(pages - 1).fill(pageQuery()),
      ]);
      const expected = live.filter((e) => e.type === l.type).map((e) => e.id);
      const first = await getJson(`${body[l.bodyField]}?limit=20`);
      expect(first.json.pagination, l.list).toEqual({
        totalElements: objects.length,
        totalPages: pages,
        elementsPerPage: 20,
        currentPage: 1,
      });
      expect(objects.map((o) => o['mandari:originId']).sort(), l.list).toEqual(expected.sort());
      expect(new Set(objects.map((o) => o.id)).size).toBe(objects.length);
      if (l.list === 'paper') expect(pages).toBe(3);
    }
  });

  it('what the reader reads when, counted at its DynamoDB client: the bodies (a Scan of the Sources config table, two Queries per source: body records, body index items), the source’s takedown registry and the list’s counter on a cold start and every BODIES_TTL_MS; else one Query per list page, one GetItem per object; never a Scan of mirror data', async () => {
    let now = Date.parse('2025-01-01T00:00:00Z');
    const api = await serveApi(bed, () => now);
    try {
      const calls = api.dynamoCalls;
      const sources = await loadAllSources(bed.clients.doc, bed.env.SOURCES_TABLE);
      const bodiesLoad = [
        { command: 'Scan', table: bed.env.SOURCES_TABLE },
        // Per source: its body records and its bodies' index items (issue 25: the body list from one read).
        ...sources.parsed
          .filter((p) => p.ok)
          .flatMap(() => [
            { command: 'Query', table: bed.env.STATE_TABLE },
            { command: 'Query', table: bed.env.STATE_TABLE },
          ]),
      ];
      expect(bodiesLoad.length).toBeGreaterThanOrEqual(2);
      // OPT-5: the source's takedown registry (one Query, cached as long as the bodies): whether the body
      // itself is taken down, before its page is read.
      const registry = { command: 'Query', table: bed.env.STATE_TABLE };
      const pageUrl = `${(body.paper as string).replace(m.base, api.base)}?limit=20`;
      // Cold: the bodies, the registry, then the page's Query and the list's counter.
      const first = await getJson(pageUrl);
      expect(calls.calls()).toEqual([...bodiesLoad, registry, pageQuery(), counterRead()]);
      // Warm: every further page is exactly one Query (its counts from the cached counter).
      let next = (first.json.links as { next?: string }).next;
      expect(next).toBeDefined();
      while (next) {
        calls.reset();
        const page = await getJson(next);
        expect(calls.calls()).toEqual([pageQuery()]);
        next = (page.json.links as { next?: string }).next;
      }
      // An object by id: its index item (GetItem; small objects are inline, so no S3 read either).
      calls.reset();
      const paper = (first.json.data as Obj[])[0] as Obj;
      expect((await getJson((paper.id as string).replace(m.base, api.base))).status).toBe(200);
      expect(calls.calls()).toEqual([{ command: 'GetItem', table: bed.env.STATE_TABLE }]);
      // Until the cache expires the bodies are not read again; just after, once.
      now += BODIES_TTL_MS;
      calls.reset();
      await getJson(pageUrl);
      expect(calls.calls()).toEqual([pageQuery()]);
      now += 1;
      calls.reset();
      await getJson(pageUrl);
      expect(calls.calls()).toEqual([...bodiesLoad, registry, pageQuery(), counterRead()]);
      // A filtered page carries no counts and reads no counter.
      calls.reset();
      const filtered = await getJson(`${pageUrl}&modified_since=2000-01-01T00:00:00Z`);
      expect(calls.calls()).toEqual([pageQuery()]);
      expect(filtered.json.pagination).toEqual({ elementsPerPage: 20, currentPage: 1 });
    } finally {
      await new Promise<void>((resolve) => api.server.close(() => resolve()));
      api.server.closeAllConnections();
    }
  });

  it('ids and references point into the API; the council appears only as origin id, web page or license', async () => {
    const councilOrigin = new URL(m.council.systemUrl).origin;
    const { objects } = await walkList(body.meeting as string);
    const papers = await walkList(body.paper as string);
    for (const o of [...objects, ...papers.objects, body]) {
      for (const [key, value] of strings(o)) {
        if (value.startsWith(councilOrigin)) expect(['mandari:originId', 'web', 'license']).toContain(key);
      }
    }
    const paper = papers.objects[0] as Obj;
    const byId = await getJson(paper.id as string);
    expect(byId.json).toEqual(paper);
    // Embedded objects have ids of their own that answer (a meeting's agenda items, a paper's files).
    const embedded = [
      ...objects.flatMap((o) => (Array.isArray(o.agendaItem) ? (o.agendaItem as Obj[]) : [])),
      ...papers.objects.flatMap((o) => (o.mainFile ? [o.mainFile as Obj] : [])),
    ];
    expect(embedded.length).toBeGreaterThan(1);
    for (const inner of embedded.slice(0, 6)) {
      const own = await getJson(inner.id as string);
      expect(own.status, String(inner.id)).toBe(200);
      expect(own.json.id).toBe(inner.id);
      expect(own.json['mandari:originId']).toBe(inner['mandari:originId']);
      expect(own.json.name).toBe(inner.name);
    }
  });

  it('File.accessUrl points to our document endpoint, by the document id the sync recorded; downloadUrl to the same with ?download=1', async () => {
    const { objects } = await walkList(body.file as string);
    expect(objects.length).toBeGreaterThan(0);
    for (const file of objects) {
      const match = /\/documents\/([0-9a-f]{64})$/.exec(file.accessUrl as string);
      expect(match, String(file.accessUrl)).not.toBeNull();
      expect(new URL(file.accessUrl as string).origin).toBe(m.base);
      // The council's files all carry a downloadUrl (demo/dataset.ts): "to download the file" (OParl 1.1).
      expect(file.downloadUrl).toBe(`${file.accessUrl}?download=1`);
      const item = await bed.clients.doc.send(
        new GetCommand({ TableName: m.tables.documents, Key: { docId: match?.[1] } }),
      );
      expect(item.Item?.fileId).toBe(file['mandari:originId']);
    }
  });

  it('ETag and If-None-Match → 304; Cache-Control for the CDN', async () => {
    const first = await getJson(body.paper as string);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const again = await fetch(body.paper as string, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const other = await fetch(body.paper as string, { headers: { 'if-none-match': '"other"' } });
    expect(other.status).toBe(200);
  });

  it('bad filters and forged cursors get a 400 with a code; unknown paths 404', async () => {
    const bad = await getJson(`${body.paper}?modified_since=soon`);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('MIRROR_API_BAD_REQUEST');
    expect((await getJson(`${body.paper}?cursor=x`)).status).toBe(400);
    expect((await fetch(`${m.base}/oparl/v1/nope`)).status).toBe(404);
  });

  it("an unlisted body's objects are not served (ONB-4)", async () => {
    const live = await liveEntries(m.h);
    const other = live.find((e) => e.type === 'paper' && e.bodyId !== bodyOriginId);
    expect(other).toBeDefined();
    const url = (body.id as string).replace(/\/body\/[0-9a-f]{40}$/, '');
    const { apiIdHash } = await import('../../shared/mirror');
    expect((await fetch(`${url}/paper/${apiIdHash(other?.id ?? '')}`)).status).toBe(404);
  });

  it('modified_since: only what changed since, deletions as deleted: true without content (OPT-2); unfiltered lists omit them', async () => {
    m.clock.advance(3 * 60 * 60_000);
    const since = m.clock.now().toISOString();
    const papers = m.council.objects('paper', { body: 1 });
    const [changed, removed] = [papers[0] as Obj, papers[1] as Obj];
    m.council.mutate([
      { id: changed.id as string, op: 'update', set: { name: 'Geänderter Antrag' } },
      { id: removed.id as string, op: 'delete' },
    ]);
    m.clock.advance(60_000);
    const report = await m.h.sync('incremental');
    expect(report.complete).toBe(true);
    const { objects } = await walkList(`${body.paper}?modified_since=${encodeURIComponent(since)}`);
    const byOrigin = new Map(objects.map((o) => [o['mandari:originId'], o]));
    expect(byOrigin.get(changed.id)).toMatchObject({ name: 'Geänderter Antrag' });
    const stub = byOrigin.get(removed.id) as Obj;
    expect(Object.keys(stub).sort()).toEqual([
      'deleted',
      'id',
      'mandari:originId',
      'mandari:source',
      'modified',
      'type',
    ]);
    expect(stub.deleted).toBe(true);
    expect(
      objects.every((o) => o['mandari:originId'] === changed.id || o['mandari:originId'] === removed.id),
    ).toBe(true);
    const unfiltered = await walkList(body.paper as string);
    expect(unfiltered.objects.some((o) => o['mandari:originId'] === removed.id)).toBe(false);
    expect((await getJson(stub.id as string)).json).toEqual(stub);
    const until = await walkList(`${body.paper}?modified_until=${encodeURIComponent(since)}`);
    expect(until.objects.some((o) => o['mandari:originId'] === changed.id)).toBe(false);
    expect(until.objects.length).toBe(unfiltered.objects.length - 1);
  });

  it('a takedown (OPT-2): content never appears again — not in lists, not by id — and an incremental client learns its copy is gone: a bare deleted stub at the takedown time in modified_since lists; no other object moves', async () => {
    const { objects } = await walkList(body.paper as string);
    const victim = objects[5] as Obj;
    const before = await walkList(`${body.paper}?modified_since=2000-01-01T00:00:00Z`);
    m.clock.advance(60 * 60_000);
    const since = m.clock.now().toISOString();
    await tombstoneIds(
      { clients: bed.clients, tables: m.tables, bucket: bed.env.BUCKET, now: () => m.clock.now() },
      [victim['mandari:originId'] as string],
      { sourceId: m.h.source.sourceId, by: 'test' },
    );
    const all = await walkList(body.paper as string);
    expect(all.objects.some((o) => o.id === victim.id)).toBe(false);
    expect(all.objects).toHaveLength(objects.length - 1);
    expect((await fetch(victim.id as string)).status).toBe(404);
    // The client that mirrored the list before asks what changed since: the id, deleted, nothing else.
    const changed = await walkList(`${body.paper}?modified_since=${encodeURIComponent(since)}`);
    expect(changed.objects).toHaveLength(1);
    const stub = changed.objects[0] as Obj;
    expect(Object.keys(stub).sort()).toEqual(['deleted', 'id', 'modified', 'type']);
    expect(stub).toMatchObject({ id: victim.id, deleted: true, type: victim.type });
    expect((stub.modified as string) >= since).toBe(true);
    expect(JSON.stringify(changed.objects)).not.toContain(victim['mandari:originId'] as string);
    // Every other object keeps its place and its `modified`.
    const after = await walkList(`${body.paper}?modified_since=2000-01-01T00:00:00Z`);
    const others = (list: Obj[]) =>
      list.filter((o) => o.id !== victim.id).map((o) => `${o.id} ${o.modified}`);
    expect(others(after.objects)).toEqual(others(before.objects));
    expect(after.objects.at(-1)?.id).toBe(victim.id);
  });

  it('ingestor objects lists what the mirror holds: live, deleted and taken down, by body, type and commit time', async () => {
    const { objectsCommand } = await import('../../cli/commands/objects');
    const rt = { env: bed.env, clients: bed.clients, dataDir: '.', close: async () => {} };
    const out = await objectsCommand(rt, { body: 'koeln', type: 'paper' });
    const rows = (out.json as { objects: { state: string; committedAt: string; id: string }[] }).objects;
    const served = await walkList(body.paper as string);
    expect(
      rows
        .filter((r) => r.state === 'live')
        .map((r) => r.id)
        .sort(),
    ).toEqual(served.objects.map((o) => o['mandari:originId']).sort());
    expect(rows.filter((r) => r.state === 'deleted')).toHaveLength(1);
    expect(rows.filter((r) => r.state === 'taken-down')).toHaveLength(1);
    const latest = rows
      .map((r) => r.committedAt)
      .sort()
      .at(-1) as string;
    const since = await objectsCommand(rt, { body: 'koeln', type: 'paper', since: new Date(latest) });
    const recent = (since.json as { objects: { committedAt: string }[] }).objects;
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThan(rows.length);
    // An unknown --type never reaches the command: the table refuses it (test/cli/args.test.ts).
  });

  it('a State table without the list index (a .data/ from before) is a typed error, not an opaque failure', async () => {
    const { CreateTableCommand } = await import('@aws-sdk/client-dynamodb');
    const { createTableInput } = await import('../../shared/store/provision');
    const { STATE_TABLE } = await import('../../shared/store/tables');
    const { MirrorApiIndexMissingError, MirrorReader, parseListQuery } = await import(
      '../../shared/mirror-api'
    );
    const old = {
      ...STATE_TABLE,
      globalIndexes: STATE_TABLE.globalIndexes.filter((i) => i.indexName !== LIST_INDEX),
    };
    await bed.clients.dynamo.send(new CreateTableCommand(createTableInput(old, 'state-before-api')));
    const reader = new MirrorReader(bed.clients, {
      bucket: bed.env.BUCKET,
      tables: { sources: m.tables.sources, state: 'state-before-api' },
    });
    await expect(
      reader.listPage(m.h.source.sourceId, bodyOriginId, 'paper', parseListQuery(new URLSearchParams())),
    ).rejects.toBeInstanceOf(MirrorApiIndexMissingError);
  });
});
