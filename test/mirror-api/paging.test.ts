import { describe, expect, it } from 'vitest';
import { documentId } from '../../shared/engine';
import { apiIdHash, LIST_SORT_PATTERN, listSort, listSortOfHash } from '../../shared/mirror';
import {
  apiUrls,
  CREATED_CLOCK_SLACK_MS,
  canonicalInstant,
  canonicalSearch,
  createdWithin,
  decidePage,
  decodeCursor,
  encodeCursor,
  isFiltered,
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
const hash = 'ab'.repeat(20);
const sort = listSortOfHash('2024-07-01T10:00:00.000Z', hash);

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
    // The index sorts by epoch ms in 13 digits (shared/mirror `listSort`).
    expect(sortRange(query)).toEqual({
      lo: String(Date.parse('2024-07-01T10:00:00Z')),
      hi: `${Date.parse('2024-07-02T00:00:00Z')}#~`,
    });
    // Bounds outside what a sort key can hold select what they mean, never an error.
    expect(sortRange(q('modified_since=1900-01-01&modified_until=9999-12-31'))).toEqual({
      lo: '0000000000000',
      hi: '9999999999999#~',
    });
    expect(() => q('modified_since=yesterday')).toThrow(/ISO 8601/);
    expect(() => q('modified_since=2024-07-02T00:00:00Z&modified_until=2024-07-01T00:00:00Z')).toThrow(
      MirrorApiRequestError,
    );
  });

  it('the cursor is opaque, round-trips, and a forged one is refused', () => {
    const c = { after: { sort, key: hash }, page: 3 };
    expect(sort).toBe(`${Date.parse('2024-07-01T10:00:00Z')}#abababababab`);
    expect(sort).toMatch(LIST_SORT_PATTERN);
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(() => q('cursor=notacursor')).toThrow(/cursor/);
    // Well-formed, but crafted: its start key would reach DynamoDB (an empty sort key fails there → 500).
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const value of [
      ['x', hash, 2],
      [`${sort.slice(0, 13)}#`, hash, 2],
      [`#${hash.slice(0, 12)}`, hash, 2],
      [sort, 'x', 2],
      // The id hash must be the one the sort key ends in.
      [sort, 'cd'.repeat(20), 2],
      [sort, hash, 1],
      [sort, hash, 2.5],
      [sort, hash],
      // Legacy form with a time no sort key can hold.
      [`9999-07-01T10:00:00.000Z#${hash}`, 2],
      [`2024-07-01#${hash}`, 2],
    ]) {
      expect(() => decodeCursor(forged(value)), JSON.stringify(value)).toThrow(/cursor/);
    }
  });

  // Issue 25 point 5: ids are keyed now, and `ingestor backfill-index` re-derives every tie-break. A
  // cursor issued over the unkeyed ids (both forms before it) goes on at the start of its millisecond:
  // entries of that millisecond may come twice, none is skipped.
  const startOfSecond = `${Date.parse('2024-07-01T10:00:00Z')}#${'0'.repeat(12)}`;
  const lowest = '0'.repeat(40);

  it('a cursor of the first list index (`<ISO>#<id hash>`, page) goes on at the start of its millisecond', () => {
    const legacy = Buffer.from(JSON.stringify([`2024-07-01T10:00:00.000Z#${hash}`, 4])).toString('base64url');
    expect(decodeCursor(legacy)).toEqual({ after: { sort: startOfSecond, key: lowest }, page: 4 });
  });

  it('a cursor issued over the unkeyed ids (no key mark) goes on at the start of its millisecond; a keyed one where it was', () => {
    const unkeyed = Buffer.from(JSON.stringify([sort, hash, 4])).toString('base64url');
    expect(decodeCursor(unkeyed)).toEqual({ after: { sort: startOfSecond, key: lowest }, page: 4 });
    const keyed = encodeCursor({ after: { sort, key: hash }, page: 4 });
    expect(JSON.parse(Buffer.from(keyed, 'base64url').toString('utf8'))).toEqual([sort, hash, 4, 'k']);
    expect(decodeCursor(keyed)).toEqual({ after: { sort, key: hash }, page: 4 });
    // A mark other than ours is refused like any forged cursor.
    const marked = Buffer.from(JSON.stringify([sort, hash, 4, 'x'])).toString('base64url');
    expect(() => decodeCursor(marked)).toThrow(/cursor/);
  });
});

describe('page decision (pure)', () => {
  const row = (n: number, extra: { deleted?: boolean; takedown?: boolean; at?: number } = {}) => ({
    sortKey: listSort(`2024-07-01T10:00:${String(extra.at ?? n).padStart(2, '0')}.000Z`, `id${n}`),
    key: apiIdHash(`id${n}`),
    deleted: extra.deleted ?? false,
    takedown: extra.takedown ?? false,
  });

  it('limit + 1 rows → a next cursor after the last row of the page; fewer → none', () => {
    const rows = Array.from({ length: 21 }, (_, i) => row(i));
    const d = decidePage(rows, q('limit=20'));
    expect(d.show).toHaveLength(20);
    expect(d.next).toEqual({ after: { sort: rows[19]?.sortKey, key: rows[19]?.key }, page: 2 });
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

  it('in-memory paging walks every row once in sort order, rows of one sort key by their id hash', () => {
    const rows = Array.from({ length: 45 }, (_, i) => row(44 - i, { at: (44 - i) % 3 }));
    // Rows sharing a sort key (the same commit time and 12 hex, forged here) are told apart by the key.
    const twins = [0, 1, 2].map((n) => ({ ...row(100 + n, { at: 0 }), sortKey: rows[0]?.sortKey ?? '' }));
    const all = [...rows, ...twins];
    const seen: string[] = [];
    let query = q('limit=20');
    for (;;) {
      const d = pageInMemory(all, query);
      seen.push(...d.show.map((s) => s.row.key));
      if (!d.next) break;
      query = { ...query, cursor: d.next };
    }
    const order = [...all].sort((a, b) =>
      a.sortKey === b.sortKey ? (a.key < b.key ? -1 : 1) : a.sortKey < b.sortKey ? -1 : 1,
    );
    expect(seen).toEqual(order.map((r) => r.key));
    expect(new Set(seen).size).toBe(48);
  });

  it('links: first without cursor, next with one, pagination counts', () => {
    const env = listEnvelope({
      listUrl: 'http://api.test/oparl/v1/x/body/h/paper?limit=20&cursor=abc',
      decision: { next: { after: { sort, key: hash }, page: 3 }, page: 2 },
      query: q('limit=20'),
      data: [],
    });
    const links = env.links as Record<string, string>;
    expect(links.first).toBe('http://api.test/oparl/v1/x/body/h/paper?limit=20');
    expect(decodeCursor(new URL(links.next ?? '').searchParams.get('cursor') ?? '')).toEqual({
      after: { sort, key: hash },
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
    const env = listEnvelope({
      listUrl: 'http://api.test/oparl/v1/x/body/h/paper',
      decision: { page: 1 },
      query: q(''),
      data: [],
      counts,
    });
    expect(env.pagination).toEqual({ totalElements: 37, totalPages: 1, elementsPerPage: 50, currentPage: 1 });
  });
});

describe('one spelling of a query, created filters (pure; issue 25 point 4, issue 26 point 3)', () => {
  it('canonicalInstant: ISO 8601 as clients write it → toISOString; anything else → undefined', () => {
    expect(canonicalInstant('2024-03-01')).toBe('2024-03-01T00:00:00.000Z');
    expect(canonicalInstant('2024-03-01T01:00:00+01:00')).toBe('2024-03-01T00:00:00.000Z');
    expect(canonicalInstant('2024-03-01T01:00:00 01:00')).toBe('2024-03-01T00:00:00.000Z');
    expect(canonicalInstant('2024-03-01T01:00+0100')).toBe('2024-03-01T00:00:00.000Z');
    expect(canonicalInstant('2024-02-29T23:30:00-01:00')).toBe('2024-03-01T00:30:00.000Z');
    expect(canonicalInstant('2024-03-01T00:00:00.123456Z')).toBe('2024-03-01T00:00:00.123Z');
    expect(canonicalInstant('2024-03-01T00:00:00')).toBe('2024-03-01T00:00:00.000Z');
    for (const junk of [
      '2024-01-01junk',
      'yesterday',
      '2024-02-30',
      '2023-02-29',
      '2024-01-01T24:00:00Z',
      '2024-01-01T10:60Z',
      '2024-01-01T10:00:00+25:00',
      '20240101',
      ' 2024-01-01',
      '',
    ])
      expect(canonicalInstant(junk), junk).toBeUndefined();
  });

  it('parseListQuery refuses a second value and non-decimal sizes; canonicalSearch writes one order and form', () => {
    expect(() => q('cursor=a&cursor=b')).toThrow(/2 times/);
    expect(() => q('limit=0x64')).toThrow(MirrorApiRequestError);
    expect(() => q('created_since=2024-02-01&created_until=2024-01-01')).toThrow(/created_since is after/);
    const query = q('limit=20&modified_until=2024-12-31&created_since=2024-01-01T01:00:00%2B01:00&utm=1');
    expect(query).toEqual({
      limit: 20,
      createdSince: '2024-01-01T00:00:00.000Z',
      modifiedUntil: '2024-12-31T00:00:00.000Z',
    });
    expect(canonicalSearch(query).toString()).toBe(
      'created_since=2024-01-01T00%3A00%3A00.000Z&modified_until=2024-12-31T00%3A00%3A00.000Z&limit=20',
    );
    expect(canonicalSearch(q('limit=50')).toString()).toBe('');
    expect(isFiltered(q('created_until=2024-01-01'))).toBe(true);
  });

  it('created_since narrows the index range (less a day of clock slack); created_until does not', () => {
    expect(sortRange(q('created_since=2024-07-02T00:00:00Z'))).toEqual({
      lo: String(Date.parse('2024-07-02T00:00:00Z') - CREATED_CLOCK_SLACK_MS),
    });
    // The later of the two bounds wins.
    expect(sortRange(q('created_since=2024-07-02&modified_since=2024-08-01'))).toEqual({
      lo: String(Date.parse('2024-08-01T00:00:00Z')),
    });
    expect(sortRange(q('created_until=2024-07-02'))).toEqual({});
  });

  it('createdWithin: the origin created, else modified; bounds inclusive', () => {
    const within = createdWithin(q('created_since=2024-01-10&created_until=2024-01-20'));
    expect(within({ created: '2024-01-10T01:00:00+01:00', modified: '2025-01-01T00:00:00Z' })).toBe(true);
    expect(within({ created: '2024-01-09T23:59:59Z', modified: '2024-01-15T00:00:00Z' })).toBe(false);
    expect(within({ modified: '2024-01-20T00:00:00.000Z' })).toBe(true);
    expect(within({ created: 'unbekannt', modified: '2024-01-21T00:00:00Z' })).toBe(false);
    expect(createdWithin(q(''))({})).toBe(true);
  });
});

describe('URL scheme and rewriting (pure)', () => {
  const urls = apiUrls('https://api.test');

  it('ids derive from the origin id alone and parse back to their route', () => {
    const url = urls.object('ris-a', 'paper', 'https://ris.example/oparl/paper/7');
    expect(url).toBe(
      `https://api.test/oparl/v1/ris-a/paper/${apiIdHash('https://ris.example/oparl/paper/7')}`,
    );
    expect(parseApiPath(new URL(url).pathname)).toEqual({
      kind: 'object',
      sourceId: 'ris-a',
      type: 'paper',
      hash: apiIdHash('https://ris.example/oparl/paper/7'),
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
    expect(file.downloadUrl).toBe(`${file.accessUrl}?download=1`);
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
