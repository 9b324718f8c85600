import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, LIST_KEYS, startDemoCouncil, startFakeCouncil } from '../../demo';
import { get, getJson, type ListPage, urlsIn, walk } from './http';

// Fields that legitimately point elsewhere (schema URIs, licences, vendor sites, the public website).
const EXTERNAL_KEYS = new Set([
  'type',
  'oparlVersion',
  'license',
  'fileLicense',
  'vendor',
  'product',
  'website',
]);

describe('fake council: dataset, paging and URLs', () => {
  let council: FakeCouncil;
  beforeAll(async () => {
    council = await startFakeCouncil({ bodies: 2, objectsPerList: 7, pageSize: 3 });
  });
  afterAll(() => council.close());

  it('serves a System whose body list is on this server', async () => {
    const system = await getJson(council.systemUrl);

    expect(system).toMatchObject({
      id: council.systemUrl,
      type: 'https://schema.oparl.org/1.1/System',
      oparlVersion: 'https://schema.oparl.org/1.1/',
      body: council.bodyListUrl,
    });
    expect(council.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('SCH-8: every link in system, bodies and all lists points at this server', async () => {
    const docs: unknown[] = [await getJson(council.systemUrl), ...(await walk(council.bodyListUrl))];
    // First pages suffice: later pages come from the same renderer (and are walked below).
    docs.push(...(await Promise.all(LIST_KEYS.map((list) => getJson(council.listUrl(list, 2))))));

    const foreign = docs.flatMap((d) => urlsIn(d)).filter((u) => !EXTERNAL_KEYS.has(u.key));
    expect(foreign.length).toBeGreaterThan(50);
    expect(foreign.filter((u) => !u.url.startsWith(`${council.url}/`))).toEqual([]);
  });

  it.each(LIST_KEYS)('list %s: 7 objects over 3 pages, linked by links.next', async (list) => {
    const pages = await walk(council.listUrl(list));

    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1]);
    expect(pages[0]?.pagination).toEqual({
      totalElements: 7,
      elementsPerPage: 3,
      currentPage: 1,
      totalPages: 3,
    });
    expect(pages[2]?.links.next).toBeUndefined();
    const ids = pages.flatMap((p) => p.data.map((o) => o.id));
    expect(new Set(ids).size).toBe(7);
    for (const o of pages.flatMap((p) => p.data)) {
      expect(o.type).toMatch(/^https:\/\/schema\.oparl\.org\/1\.1\/[A-Z][A-Za-z]+$/);
      expect(o.modified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
      expect(o.created).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    }
  });

  it('serves each object at its id, equal to the list entry', async () => {
    const page = await getJson<ListPage>(council.listUrl('paper'));
    const first = page.data[0]!;

    expect(await getJson(String(first.id))).toEqual(first);
  });

  it('meetings embed agenda items and files; papers embed files and consultations', async () => {
    const meeting = await getJson(council.objectUrl('meeting', 1));
    const paper = await getJson(council.objectUrl('paper', 1));

    expect(meeting).toMatchObject({
      type: 'https://schema.oparl.org/1.1/Meeting',
      name: '4. Sitzung des Finanzausschusses',
      invitation: { type: 'https://schema.oparl.org/1.1/File', mimeType: 'application/pdf' },
      agendaItem: [{ type: 'https://schema.oparl.org/1.1/AgendaItem', meeting: meeting.id }],
      organization: [council.objectUrl('organization', 1)],
    });
    expect(paper).toMatchObject({
      mainFile: { type: 'https://schema.oparl.org/1.1/File' },
      consultation: [{ type: 'https://schema.oparl.org/1.1/Consultation', paper: paper.id }],
    });
  });

  it('DOC: a file accessUrl serves a valid PDF matching size and sha1Checksum', async () => {
    const paper = await getJson(council.objectUrl('paper', 1));
    const file = paper.mainFile as Record<string, unknown>;

    const res = await get(String(file.accessUrl));
    const bytes = Buffer.from(await res.arrayBuffer());

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(bytes.length).toBe(file.size);
    expect(createHash('sha1').update(bytes).digest('hex')).toBe(file.sha1Checksum);
    const text = bytes.toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    // Every xref entry must point at the object it names, or PDF readers reject the file.
    const xrefAt = Number(/startxref\n(\d+)/.exec(text)?.[1]);
    const entries = text.slice(xrefAt).split('\n').slice(3, 8);
    entries.forEach((entry, i) => {
      expect(text.slice(Number(entry.slice(0, 10)))).toMatch(new RegExp(`^${i + 1} 0 obj`));
    });
    expect(text).toContain('(Vorlage) Tj');
    expect(text).toContain('(Der \\334bersichtsplan');
  });

  it('download URLs ask for an attachment', async () => {
    const file = await getJson(council.objectUrl('file', 2));

    const res = await get(String(file.downloadUrl));
    await res.arrayBuffer();

    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${file.fileName}"`);
  });

  it('the home page links the OParl endpoint (for the probe)', async () => {
    const res = await get(`${council.url}/`);
    const html = await res.text();

    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain(`href="${council.systemUrl}"`);
    expect(html).toContain('Gemeinde Lütjenburg-Süd');
  });

  it('answers unknown paths, bodies and objects with 404 and other methods with 405', async () => {
    const statuses = await Promise.all(
      [`${council.url}/nope`, council.bodyUrl(3), council.objectUrl('meeting', 99)].map(async (u) => {
        const res = await get(u);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const post = await get(council.systemUrl, { method: 'POST' });
    await post.arrayBuffer();

    expect(statuses).toEqual([404, 404, 404]);
    expect(post.status).toBe(405);
  });
});

describe('fake council: options', () => {
  it('SCH-8: body list over more than 20 pages', async () => {
    const council = await startFakeCouncil({ bodies: 23, bodyPageSize: 1, objectsPerList: 0 });
    try {
      const pages = await walk(council.bodyListUrl);

      expect(pages).toHaveLength(23);
      expect(pages[22]?.pagination.totalPages).toBe(23);
      expect(pages.map((p) => p.data[0]?.type)).toEqual(Array(23).fill('https://schema.oparl.org/1.1/Body'));
    } finally {
      await council.close();
    }
  });

  it('SCH-11: missing lists stay advertised but answer 404', async () => {
    const council = await startFakeCouncil({ missingLists: ['membership', 'locationList'] });
    try {
      const body = await getJson(council.bodyUrl());
      const res = await get(String(body.membership));
      await res.arrayBuffer();

      expect(res.status).toBe(404);
      expect((await get(String(body.meeting))).status).toBe(200);
    } finally {
      await council.close();
    }
  });

  it('OParl 1.0: 1.0 type URIs and only the four 1.0 lists on the Body', async () => {
    const council = await startFakeCouncil({ oparlVersion: '1.0', objectsPerList: 2 });
    try {
      const body = await getJson(council.bodyUrl());

      expect(body.type).toBe('https://schema.oparl.org/1.0/Body');
      expect(Object.keys(body)).toEqual(
        expect.arrayContaining(['organization', 'person', 'meeting', 'paper']),
      );
      expect(body).not.toHaveProperty('membership');
      expect(body).not.toHaveProperty('locationList');
      expect(body.licenseValidSince).toBe('2014-01-01');
    } finally {
      await council.close();
    }
  });

  it('hostname: generated URLs use the test host name, reachable through a test resolver', async () => {
    const council = await startFakeCouncil({ hostname: 'ris-a.test', basePath: '/webservice/oparl/v1.0' });
    try {
      const system = await getJson(council.systemUrl);
      const bodies = await getJson<ListPage>(String(system.body));

      expect(council.systemUrl).toBe(`http://ris-a.test:${council.port}/webservice/oparl/v1.0/system`);
      expect(bodies.data[0]?.id).toBe(`http://ris-a.test:${council.port}/webservice/oparl/v1.0/bodies/1`);
      expect(council.requests.at(-1)?.headers.host).toBe(`ris-a.test:${council.port}`);
    } finally {
      await council.close();
    }
  });

  it('is deterministic per seed', async () => {
    const [a, b, c] = await Promise.all([
      startFakeCouncil({ seed: 7 }),
      startFakeCouncil({ seed: 7 }),
      startFakeCouncil({ seed: 8 }),
    ]);
    try {
      const dump = (x: FakeCouncil) => JSON.stringify(x.objects('person')).replaceAll(x.url, 'BASE');

      expect(dump(a)).toBe(dump(b));
      expect(dump(a)).not.toBe(dump(c));
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it.each([
    ['sternberg', { name: 'SD.NET RIM', 'STERNBERG:RIMVersion': '4.8.1a' }],
    ['cc-egov', { name: 'N/A', website: 'N/A', vendor: 'http://cc-egov.de/' }],
  ] as const)('vendor %s: System carries the recorded vendor fields', async (vendor, expected) => {
    const council = await startFakeCouncil({ vendor });
    try {
      expect(await getJson(council.systemUrl)).toMatchObject(expected);
    } finally {
      await council.close();
    }
  });

  it('demo: three bodies with German names, runnable without the shared fixtures', async () => {
    const demo = await startDemoCouncil();
    try {
      const pages = await walk(demo.bodyListUrl);

      expect(pages.flatMap((p) => p.data.map((b) => b.name))).toEqual([
        'Stadt Musterstadt',
        'Gemeinde Lütjenburg-Süd',
        'Landkreis Beispielkreis',
      ]);
      expect((await walk(demo.listUrl('meeting', 2))).flatMap((p) => p.data)).toHaveLength(12);
    } finally {
      await demo.close();
    }
  });
});
