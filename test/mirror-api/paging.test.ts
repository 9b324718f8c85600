import { describe, expect, it } from 'vitest';
import { documentId } from '../../shared/engine';
import { idHash } from '../../shared/mirror';
import {
  apiUrls,
  decidePage,
  decodeCursor,
  encodeCursor,
  listEnvelope,
  MirrorApiRequestError,
  PAGE_SIZE_DEFAULT,
  PAGE_SIZE_MAX,
  PAGE_SIZE_MIN,
  pageCounts,
  pageInMemory,
  parseApiPath,
  parseListQuery,
  rewriteObject,
  sortRange,
} from '../../shared/mirror-api';

const q = (s: string) => parseListQuery(new URLSearchParams(s));

describe('list query (pure)', () => {
  it('page size like the origins: default, clamped to 20…100, junk refused', () => {
    expect(q('').limit).toBe(PAGE_SIZE_DEFAULT);
    expect(q('limit=5').limit).toBe(PAGE_SIZE_MIN);
    expect(q('limit=5000').limit).toBe(PAGE_SIZE_MAX);
    expect(q('limit=42').limit).toBe(42);
    expect(() => q('limit=abc')).toThrow(MirrorApiRequestError);
  });

  it('modified_since/modified_until: ISO 8601 with offset normalised to UTC, range inclusive', () => {
    const query = q('modified_since=2024-07-01T12:00:00%2B02:00&modified_until=2024-07-02T00:00:00Z');
    expect(query.modifiedSince).toBe('2024-07-01T10:00:00.000Z');
    expect(sortRange(query)).toEqual({ lo: '2024-07-01T10:00:00.000Z', hi: '2024-07-02T00:00:00.000Z#~' });
    expect(() => q('modified_since=yesterday')).toThrow(/ISO 8601/);
    expect(() => q('modified_since=2024-07-02T00:00:00Z&modified_until=2024-07-01T00:00:00Z')).toThrow(
      MirrorApiRequestError,
    );
  });

  it('the cursor is opaque, round-trips, and a forged one is refused', () => {
    const c = { after: `2024-07-01T10:00:00.000Z#${'ab'.repeat(20)}`, page: 3 };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(() => q('cursor=notacursor')).toThrow(/cursor/);
    // Well-formed, but crafted: its start key would reach DynamoDB (an empty sort key fails there → 500).
    for (const after of [
      'x',
      '2024-07-01T10:00:00.000Z#',
      `#${'ab'.repeat(20)}`,
      `2024-07-01#${'ab'.repeat(20)}`,
    ]) {
      expect(() => decodeCursor(encodeCursor({ after, page: 2 })), after).toThrow(/cursor/);
    }
  });
});

describe('page decision (pure)', () => {
  const row = (n: number, extra: { deleted?: boolean; takedown?: boolean } = {}) => ({
    sortKey: `2024-07-01T10:00:${String(n).padStart(2, '0')}.000Z#${n}`,
    deleted: extra.deleted ?? false,
    takedown: extra.takedown ?? false,
  });

  it('limit + 1 rows → a next cursor after the last row of the page; fewer → none', () => {
    const rows = Array.from({ length: 21 }, (_, i) => row(i));
    const d = decidePage(rows, q('limit=20'));
    expect(d.show).toHaveLength(20);
    expect(d.next).toEqual({ after: rows[19]?.sortKey, page: 2 });
    expect(decidePage(rows.slice(0, 20), q('limit=20')).next).toBeUndefined();
  });

  it('tombstones only in filtered lists (as deleted); taken-down objects only there, and bare (OPT-2)', () => {
    const rows = [row(1), row(2, { deleted: true }), row(3, { takedown: true, deleted: true })];
    expect(decidePage(rows, q('')).show.map((s) => s.row)).toEqual([rows[0]]);
    const filtered = decidePage(rows, q('modified_since=2024-01-01T00:00:00Z')).show;
    expect(filtered.map((s) => [s.row, s.asDeleted, s.bare === true])).toEqual([
      [rows[0], false, false],
      [rows[1], true, false],
      [rows[2], true, true],
    ]);
  });

  it('in-memory paging walks every row once in sort order', () => {
    const rows = Array.from({ length: 45 }, (_, i) => row(44 - i));
    const seen: string[] = [];
    let query = q('limit=20');
    for (;;) {
      const d = pageInMemory(rows, query);
      seen.push(...d.show.map((s) => s.row.sortKey));
      if (!d.next) break;
      query = { ...query, cursor: d.next };
    }
    expect(seen).toEqual(rows.map((r) => r.sortKey).sort());
  });

  it('links: first without cursor, next with one, pagination counts', () => {
    const env = listEnvelope(
      'http://api.test/oparl/v1/x/body/h/paper?limit=20&cursor=abc',
      { next: { after: `2024-07-01T10:00:00.000Z#${'cd'.repeat(20)}`, page: 3 }, page: 2 },
      q('limit=20'),
      [],
    );
    const links = env.links as Record<string, string>;
    expect(links.first).toBe('http://api.test/oparl/v1/x/body/h/paper?limit=20');
    expect(decodeCursor(new URL(links.next ?? '').searchParams.get('cursor') ?? '')).toEqual({
      after: `2024-07-01T10:00:00.000Z#${'cd'.repeat(20)}`,
      page: 3,
    });
    expect(env.pagination).toEqual({ elementsPerPage: 20, currentPage: 2 });
  });

  it('pagination counts from the list counter: live objects shown, pages walked (hidden entries fill pages too); none filtered or without a counter', () => {
    const counts = { entries: 41, live: 37 };
    expect(pageCounts(counts, q('limit=20'))).toEqual({ totalElements: 37, totalPages: 3 });
    expect(pageCounts({ entries: 40, live: 40 }, q('limit=20'))).toEqual({
      totalElements: 40,
      totalPages: 2,
    });
    // An empty list is still one (empty) page.
    expect(pageCounts({ entries: 0, live: 0 }, q(''))).toEqual({ totalElements: 0, totalPages: 1 });
    expect(pageCounts(counts, q('modified_since=2024-01-01'))).toBeUndefined();
    expect(pageCounts(counts, q('modified_until=2024-01-01'))).toBeUndefined();
    expect(pageCounts(undefined, q(''))).toBeUndefined();
    const env = listEnvelope('http://api.test/oparl/v1/x/body/h/paper', { page: 1 }, q(''), [], counts);
    expect(env.pagination).toEqual({ totalElements: 37, totalPages: 1, elementsPerPage: 50, currentPage: 1 });
  });
});

describe('URL scheme and rewriting (pure)', () => {
  const urls = apiUrls('https://api.test');

  it('ids derive from the origin id alone and parse back to their route', () => {
    const url = urls.object('ris-a', 'paper', 'https://ris.example/oparl/paper/7');
    expect(url).toBe(`https://api.test/oparl/v1/ris-a/paper/${idHash('https://ris.example/oparl/paper/7')}`);
    expect(parseApiPath(new URL(url).pathname)).toEqual({
      kind: 'object',
      sourceId: 'ris-a',
      type: 'paper',
      hash: idHash('https://ris.example/oparl/paper/7'),
    });
    expect(parseApiPath('/oparl/v1/ris-a/body/' + 'a'.repeat(40) + '/paper')).toMatchObject({
      kind: 'list',
      list: 'paper',
    });
    expect(parseApiPath('/oparl/v1/ris-a/paper/../../x').kind).toBe('not-found');
  });

  it('references, embedded objects and files are rewritten; the origin id is kept as a vendor property', () => {
    const origin = 'https://ris.example/oparl';
    const paper = {
      id: `${origin}/paper/1`,
      type: 'https://schema.oparl.org/1.0/Paper',
      name: 'Antrag',
      modified: '2023-01-02T03:04:05+01:00',
      web: 'https://ris.example/vo020?id=1',
      body: `${origin}/body/1`,
      originatorPerson: [`${origin}/person/4`],
      mainFile: {
        id: `${origin}/file/9`,
        type: 'https://schema.oparl.org/1.0/File',
        accessUrl: 'https://ris.example/files/9.pdf',
        downloadUrl: 'https://ris.example/files/9.pdf?dl=1',
        paper: [`${origin}/paper/1`],
      },
    };
    const out = rewriteObject(paper, 'paper', {
      urls,
      sourceId: 'ris-a',
      committedAt: '2024-07-01T10:00:00.000Z',
    });
    expect(out.id).toBe(urls.object('ris-a', 'paper', paper.id));
    expect(out.type).toBe('https://schema.oparl.org/1.1/Paper');
    expect(out['mandari:originId']).toBe(paper.id);
    expect(out.body).toBe(urls.object('ris-a', 'body', paper.body));
    expect(out.originatorPerson).toEqual([urls.object('ris-a', 'person', `${origin}/person/4`)]);
    expect(out.web).toBe(paper.web);
    expect(out.modified).toBe('2024-07-01T10:00:00.000Z');
    expect(out['mandari:originModified']).toBe('2023-01-02T03:04:05+01:00');
    const file = out.mainFile as Record<string, unknown>;
    expect(file.id).toBe(urls.object('ris-a', 'file', paper.mainFile.id));
    expect(file.accessUrl).toBe(`https://api.test/documents/${documentId(paper.mainFile.accessUrl)}`);
    expect(file.downloadUrl).toBe(file.accessUrl);
    expect(file.paper).toEqual([out.id]);
    // Deployed without a document endpoint (no preview): the origin's file links, not a dead route.
    const alone = rewriteObject(paper, 'paper', {
      urls: apiUrls('https://api.test', { documents: false }),
      sourceId: 'ris-a',
      committedAt: '2024-07-01T10:00:00.000Z',
    });
    const aloneFile = alone.mainFile as Record<string, unknown>;
    expect(aloneFile.accessUrl).toBe(paper.mainFile.accessUrl);
    expect(aloneFile.downloadUrl).toBe(paper.mainFile.downloadUrl);
    expect(aloneFile.id).toBe(file.id);
  });

  it('a body gets our lists (the mandatory four and those the origin had), never the origin lists', () => {
    const body = {
      id: 'https://ris.example/oparl/body/1',
      type: 'https://schema.oparl.org/1.1/Body',
      name: 'Stadt',
      paper: 'https://ris.example/oparl/body/1/paper',
      file: 'https://ris.example/oparl/body/1/file',
      system: 'https://ris.example/oparl/system',
    };
    const out = rewriteObject(body, 'body', {
      urls,
      sourceId: 'ris-a',
      lists: ['organization', 'person', 'meeting', 'paper'],
    });
    expect(out.paper).toBe(urls.list('ris-a', body.id, 'paper'));
    expect(out.file).toBeUndefined();
    expect(out.system).toBe(urls.system());
    expect(out.legislativeTerm).toEqual([]);
  });
});
