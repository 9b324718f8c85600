import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../../shared/engine';
import { apiIdHash, MirrorStore } from '../../shared/mirror';
import { setBodyListed } from '../../shared/onboarding';
import { tombstoneBody } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { getJson, paperWrite, seedListedBody, serveApi, stopServer } from '../support/mirror-api';
import { takedownDepsOf } from '../support/takedown';

type Obj = Record<string, unknown>;

/**
 * Issue 25 point 4 (an API flood) and its weak spot (a body gone is never announced), and issue 26
 * point 3 (created_since / created_until): against the real handler on loopback over the local peers,
 * every DynamoDB call counted at the reader's own client (test/support/write-counter middleware).
 */
const SOURCE = 'flood';
const ORIGIN = 'https://ris-flood.test/oparl/v1';
const BODIES = 6;
const bodyIds = Array.from({ length: BODIES }, (_, i) => `${ORIGIN}/body/${i + 1}`);
const AT = '2024-03-01T10:00:00.000Z';
const PAPERS = 30;

let bed: AwsTestbed;
let mirror: MirrorStore;

/** The papers of body 1: every third without `created` (as scraped objects come), the others a day apart. */
function createdOf(n: number): string | undefined {
  return n % 3 === 0
    ? undefined
    : new Date(Date.parse('2024-01-01T00:00:00Z') + n * 86_400_000).toISOString();
}

beforeAll(async () => {
  bed = await startAwsTestbed();
  mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  for (const [i, bodyId] of bodyIds.entries()) {
    await seedListedBody(bed, SOURCE, bodyId, AT);
    const object = {
      id: bodyId,
      type: 'https://schema.oparl.org/1.1/Body',
      name: `Gemeinde ${i + 1}`,
      created: '2020-01-01T00:00:00+01:00',
      modified: AT,
    };
    await mirror.writeLive({
      sourceId: SOURCE,
      type: 'body',
      id: bodyId,
      object,
      sourceUrl: `${ORIGIN}/body`,
      fetchedAt: AT,
      hash: contentHash(object),
      modified: AT,
    });
  }
  for (let n = 1; n <= PAPERS; n += 1) {
    const created = createdOf(n);
    await mirror.writeLive(
      paperWrite(
        SOURCE,
        bodyIds[0] as string,
        n,
        new Date(Date.parse(AT) + n * 60_000).toISOString(),
        created === undefined ? {} : { created: created.replace('Z', '+00:00') },
      ),
    );
  }
}, 120_000);

afterAll(async () => {
  await bed?.stop();
});

const listPath = (base: string) => `${base}/oparl/v1/${SOURCE}/body/${apiIdHash(bodyIds[0] as string)}/paper`;

describe('canonical queries (issue 25 point 4)', () => {
  it('a known parameter written differently, twice, or a value that is no date: 400 before any read, cacheable', async () => {
    const api = await serveApi(bed);
    try {
      const list = listPath(api.base);
      for (const query of [
        'limit=0x64',
        'limit=050',
        'limit=5e1',
        'limit=50.0',
        'limit=%2B50',
        'limit=20&limit=30',
        'modified_since=2024-01-01junk',
        'modified_since=2024-02-30',
        'modified_until=2024-01-01T25:00:00Z',
        'created_since=garbage',
        'created_until=2024-13-01',
        'created_since=2024-02-01&created_until=2024-01-01',
      ]) {
        for (const url of [`${list}?${query}`, `${api.base}/oparl/v1/body?${query}`]) {
          const res = await getJson(url);
          expect(res.status, url).toBe(400);
          expect(res.json.error).toBe('MIRROR_API_BAD_REQUEST');
          // The answer depends on the URL alone: the CDN keeps it, a repeated junk request costs nothing.
          expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
        }
      }
      // Refused before any read: the cold instance has not read the bodies, a list or an object.
      expect(api.dynamoCalls.calls()).toEqual([]);
      expect(api.reader.consumed.objectReads).toBe(0);
    } finally {
      await stopServer(api.server);
    }
  });

  it('a cursor with anything appended is refused: only the exact text the API wrote pages', async () => {
    const api = await serveApi(bed);
    try {
      const first = await getJson(`${listPath(api.base)}?limit=20`);
      const next = (first.json.links as { next: string }).next;
      expect((await getJson(next)).status).toBe(200);
      for (const junk of ['junk', '=', '%20', '.'])
        expect((await getJson(`${next}${junk}`)).status, junk).toBe(400);
    } finally {
      await stopServer(api.server);
    }
  });

  it('links carry only the parameters the API reads, in one spelling: unknown ones are dropped, dates and sizes canonical', async () => {
    const api = await serveApi(bed);
    try {
      const list = listPath(api.base);
      const spellings = [
        `${list}?utm_source=mail&modified_since=2024-03-01&limit=20&x=1`,
        `${list}?limit=20&modified_since=2024-03-01T00:00:00Z`,
        `${list}?modified_since=2024-03-01T01:00:00%2B01:00&limit=20&cb=123`,
        // An unencoded `+` arrives as a space: read as the offset it was.
        `${list}?modified_since=2024-03-01T01:00:00+01:00&limit=20`,
        `${list}?modified_since=2024-03-01T00:00:00.000Z&limit=20`,
      ];
      const links = [];
      for (const url of spellings) {
        const page = await getJson(url);
        expect(page.status, url).toBe(200);
        links.push(page.json.links as Record<string, string>);
      }
      const canonical = `${list}?modified_since=2024-03-01T00%3A00%3A00.000Z&limit=20`;
      for (const l of links) {
        expect(l.self).toBe(canonical);
        expect(l.first).toBe(canonical);
        expect(new URL(l.next as string).searchParams.has('cursor')).toBe(true);
      }
      // Every spelling leads the client to the very same next page: one cache entry, not one per spelling.
      expect(new Set(links.map((l) => l.next)).size).toBe(1);
      const next = links[0]?.next as string;
      expect([...new URL(next).searchParams.keys()]).toEqual(['modified_since', 'limit', 'cursor']);
      const second = await getJson(`${next}&utm_campaign=x`);
      expect((second.json.links as Record<string, string>).self).toBe(next);
      // The body list too.
      const bodies = await getJson(`${api.base}/oparl/v1/body?limit=20&fbclid=abc`);
      expect((bodies.json.links as Record<string, string>).self).toBe(`${api.base}/oparl/v1/body?limit=20`);
    } finally {
      await stopServer(api.server);
    }
  });
});

describe('the body list from one read (issue 25 point 4)', () => {
  it('a missed /body page reads the bodies once (a Scan of Sources, a Query of body records and one of body index items per source) and no S3 object per body', async () => {
    const api = await serveApi(bed);
    try {
      const page = await getJson(`${api.base}/oparl/v1/body?limit=20`);
      expect(page.status).toBe(200);
      expect((page.json.data as Obj[]).map((b) => b.name).sort()).toEqual(
        Array.from({ length: BODIES }, (_, i) => `Gemeinde ${i + 1}`).sort(),
      );
      // The bodies' objects ride inline in their index items: not one S3 GET for the page.
      expect(api.reader.consumed.objectReads).toBe(0);
      const calls = api.dynamoCalls.calls();
      expect(calls.filter((c) => c.command === 'Scan')).toEqual([
        { command: 'Scan', table: bed.env.SOURCES_TABLE },
      ]);
      // One source: its body records, its body index items, its takedown registry.
      expect(calls.filter((c) => c.command === 'Query')).toHaveLength(3);
      // Warm, another page of the list reads nothing at all.
      api.dynamoCalls.reset();
      const again = await getJson(`${api.base}/oparl/v1/body?limit=21`);
      expect((again.json.data as Obj[]).length).toBe(BODIES);
      expect(api.dynamoCalls.calls()).toEqual([]);
      expect(api.reader.consumed.objectReads).toBe(0);
      // The same body by id reads no S3 either, and equals its list entry.
      const first = (page.json.data as Obj[])[0] as Obj;
      expect((await getJson(first.id as string)).json).toEqual(first);
      expect(api.reader.consumed.objectReads).toBe(0);
    } finally {
      await stopServer(api.server);
    }
  });
});

describe('created_since / created_until on every list (issue 26 point 3, OParl 1.1 Filter)', () => {
  /** Every object of a list along `links.next`. */
  async function walk(url: string): Promise<Obj[]> {
    const out: Obj[] = [];
    let next: string | undefined = url;
    while (next !== undefined) {
      const page = await getJson(next);
      expect(page.status, next).toBe(200);
      out.push(...(page.json.data as Obj[]));
      next = (page.json.links as { next?: string }).next;
    }
    return out;
  }
  const numberOf = (o: Obj) => Number(String(o['mandari:originId']).split('/').at(-1));

  it('filter by the origin’s created (any ISO spelling); an object without one by its modified (our commit time)', async () => {
    const api = await serveApi(bed);
    try {
      const list = listPath(api.base);
      const since = '2024-01-10T00:00:00Z';
      const until = '2024-01-20T00:00:00Z';
      const got = await walk(
        `${list}?created_since=${encodeURIComponent(since)}&created_until=${encodeURIComponent(until)}&limit=20`,
      );
      // Created in [10 Jan, 20 Jan]: papers 9…19 (1 Jan + n days) that carry `created`; the others (every third) were
      // committed on 1 March, after `until`: not created by then as far as anyone can tell.
      const expected = Array.from({ length: PAPERS }, (_, i) => i + 1).filter(
        (n) => createdOf(n) !== undefined && n >= 9 && n <= 19,
      );
      expect(got.map(numberOf).sort((a, b) => a - b)).toEqual(expected);
      expect(got.every((o) => o.deleted !== true)).toBe(true);
      // created_since alone: those created since 25 Jan, and every paper without created (committed in March).
      const late = await walk(`${list}?created_since=2024-01-25`);
      expect(late.map(numberOf).sort((a, b) => a - b)).toEqual(
        Array.from({ length: PAPERS }, (_, i) => i + 1).filter((n) => createdOf(n) === undefined || n >= 24),
      );
      // created_until before anything: nothing; the four filters together narrow as each does.
      expect(await walk(`${list}?created_until=2023-01-01`)).toEqual([]);
      const four = await walk(
        `${list}?created_since=2024-01-01&created_until=2024-12-31&modified_since=${encodeURIComponent(
          new Date(Date.parse(AT) + 5 * 60_000).toISOString(),
        )}&modified_until=${encodeURIComponent(new Date(Date.parse(AT) + 8 * 60_000).toISOString())}`,
      );
      expect(four.map(numberOf).sort((a, b) => a - b)).toEqual([5, 6, 7, 8]);
      // The body list too: every body was created in 2020 (origin time zone +01:00).
      expect(await walk(`${api.base}/oparl/v1/body?created_since=2020-01-01`)).toHaveLength(0);
      expect(await walk(`${api.base}/oparl/v1/body?created_since=2019-12-31T23:00:00Z`)).toHaveLength(BODIES);
    } finally {
      await stopServer(api.server);
    }
  });
});

describe('a body taken down or unlisted is announced (issue 25 weak spot, OPT-2, ONB-4)', () => {
  it('the filtered body list shows a bare deletion stub for it; its URL and lists answer 410 Gone; a body never listed stays unnamed', async () => {
    const api = await serveApi(bed);
    try {
      const [, second, third, fourth] = bodyIds as [string, string, string, string];
      const tables = {
        sources: bed.env.SOURCES_TABLE,
        state: bed.env.STATE_TABLE,
        documents: bed.env.DOCUMENTS_TABLE,
      };
      const bodies = await getJson(`${api.base}/oparl/v1/body`);
      const before = new Map((bodies.json.data as Obj[]).map((b) => [b['mandari:originId'], b]));
      const since = new Date().toISOString();
      const slugOf = async (id: string) => {
        const { listBodies } = await import('../../shared/onboarding');
        const all = await listBodies(bed.clients.doc, tables);
        return all.find((b) => b.id === id)?.slug as string;
      };
      await setBodyListed(bed.clients.doc, tables, await slugOf(second), {
        listed: false,
        sourceId: SOURCE,
        by: 'test',
      });
      await tombstoneBody(takedownDepsOf(bed), await slugOf(third), { sourceId: SOURCE, by: 'test' });
      // A fresh instance (the bodies are cached 30 s per process).
      const fresh = await serveApi(bed);
      try {
        const filtered = await getJson(
          `${fresh.base}/oparl/v1/body?modified_since=${encodeURIComponent(since)}`,
        );
        expect(filtered.status).toBe(200);
        const stubs = filtered.json.data as Obj[];
        const idOf = (origin: string) => String(before.get(origin)?.id ?? '').replace(api.base, fresh.base);
        expect(stubs.map((s) => s.id).sort()).toEqual([idOf(second), idOf(third)].sort());
        for (const stub of stubs) {
          // Bare, as a takedown's: nothing of the body, only that its id is gone.
          expect(Object.keys(stub).sort()).toEqual(['deleted', 'id', 'modified', 'type']);
          expect(stub).toMatchObject({ type: 'https://schema.oparl.org/1.1/Body', deleted: true });
          expect(Date.parse(stub.modified as string)).toBeGreaterThanOrEqual(Date.parse(since));
        }
        // Unfiltered: the served bodies only.
        const all = await getJson(`${fresh.base}/oparl/v1/body`);
        expect((all.json.data as Obj[]).map((b) => b['mandari:originId'])).not.toContain(second);
        expect((all.json.data as Obj[]).length).toBe(BODIES - 2);
        // Gone, not "never here": its URL and every list say so.
        for (const origin of [second, third]) {
          const id = idOf(origin);
          const byId = await getJson(id);
          expect(byId.status, origin).toBe(410);
          expect(byId.json).toMatchObject({ error: 'MIRROR_API_BODY_GONE', deleted: true });
          for (const list of ['paper', 'meeting', 'person', 'organization'])
            expect((await getJson(`${id}/${list}?modified_since=2024-01-01`)).status, list).toBe(410);
        }
        // Listed again: served, and it moves to its relisting time, so a filtered list shows it again.
        await setBodyListed(bed.clients.doc, tables, await slugOf(second), {
          listed: true,
          sourceId: SOURCE,
          by: 'test',
        });
        const again = await serveApi(bed);
        try {
          const back = await getJson(
            `${again.base}/oparl/v1/body?modified_since=${encodeURIComponent(since)}`,
          );
          const shown = (back.json.data as Obj[]).find((b) => b['mandari:originId'] === second);
          expect(shown).toMatchObject({ name: 'Gemeinde 2' });
          expect(shown?.deleted).toBeUndefined();
        } finally {
          await stopServer(again.server);
        }
        // A body never listed is never named: 404, and no stub.
        const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
        const { bodySk, sourcePartition } = await import('../../shared/engine');
        const { bodyKeyOf } = await import('../../shared/oparl');
        await bed.clients.doc.send(
          new UpdateCommand({
            TableName: bed.env.STATE_TABLE,
            Key: { pk: sourcePartition(SOURCE), sk: bodySk(bodyKeyOf(fourth)) },
            UpdateExpression: 'SET listed = :f',
            ExpressionAttributeValues: { ':f': false },
          }),
        );
        const last = await serveApi(bed);
        try {
          const list = await getJson(`${last.base}/oparl/v1/body?modified_since=2000-01-01`);
          expect((list.json.data as Obj[]).map((b) => b.id)).not.toContain(
            `${last.base}/oparl/v1/${SOURCE}/body/${apiIdHash(fourth)}`,
          );
          expect((await getJson(`${last.base}/oparl/v1/${SOURCE}/body/${apiIdHash(fourth)}`)).status).toBe(
            404,
          );
        } finally {
          await stopServer(last.server);
        }
      } finally {
        await stopServer(fresh.server);
      }
    } finally {
      await stopServer(api.server);
    }
  });
});
