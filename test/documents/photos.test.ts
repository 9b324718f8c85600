import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadMarks,
  PHO_MAX_PERSONS_PER_BODY,
  PHO_PAUSE_MS,
  PHO_RECHECK_MS,
  photoUrl,
  runPhotosPass,
  selectPersonsForPhotos,
} from '../../shared/documents';
import { bodyKeyOf } from '../../shared/documents/keys';
import { MirrorStore, photoKey } from '../../shared/mirror';
import {
  DAY,
  type DocumentsBed,
  objectExists,
  putBody,
  putSource,
  setFailureStreak,
  startDocumentsBed,
} from '../support/documents-bed';
import { routes, startTestServer, type TestServer } from '../support/fetch-kit';

/** Person photos (SPEC PHO-1 … PHO-3) against a photo server on loopback, on a fake clock. */
describe('person photos', () => {
  let bed: DocumentsBed;
  let photos: TestServer;
  let down: TestServer;
  const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
  const etag = `"${createHash('sha1').update(JPEG).digest('hex').slice(0, 12)}"`;
  const PRESENT = new Set(['1', '2', '3']);
  const SOURCE = 'stadt-fotos';
  const BODY = 'https://ris-p.test/oparl/v1/bodies/1';
  const OTHER_BODY = 'https://ris-p.test/oparl/v1/bodies/2';
  const personId = (body: number, n: number) => `https://ris-p.test/oparl/v1/bodies/${body}/person/${n}`;

  async function seedPersons(sourceId: string, bodyId: string, body: number, count: number) {
    const mirror = new MirrorStore(bed.aws.clients, {
      bucket: bed.aws.env.BUCKET,
      stateTable: bed.aws.env.STATE_TABLE,
    });
    for (let n = 1; n <= count; n++) {
      await mirror.writeLive({
        sourceId,
        type: 'person',
        id: personId(body, n),
        object: { id: personId(body, n), type: 'https://schema.oparl.org/1.1/Person', name: `Person ${n}` },
        sourceUrl: `https://ris-p.test/oparl/v1/bodies/${body}/person`,
        fetchedAt: new Date(bed.clock.now()).toISOString(),
        bodyId,
        hash: `h${n}`,
      });
    }
  }

  beforeAll(async () => {
    bed = await startDocumentsBed();
    // /photos/<n>.jpg for the persons in PRESENT, conditional answers on the ETag (B-1), 404 otherwise.
    photos = await startTestServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (path === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('User-agent: *\nAllow: /\n');
        return;
      }
      const m = /^\/photos\/(\d+)\.jpg$/.exec(path);
      if (!m || !PRESENT.has(m[1] ?? '')) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no photo');
        return;
      }
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'image/jpeg', etag });
      res.end(JPEG);
    });
    down = await startTestServer(routes({}, { status: 503 }));
    await putSource(bed, {
      sourceId: SOURCE,
      systemUrl: 'https://ris-p.test/oparl/v1/system',
      photoUrlPatterns: { [BODY]: photos.url('/photos/{personId}.jpg', 'photos.test') },
    });
    await putBody(bed, SOURCE, { id: BODY, listed: true, slug: 'stadt-p' });
    await putBody(bed, SOURCE, { id: OTHER_BODY, listed: true, slug: 'stadt-q' });
    await seedPersons(SOURCE, BODY, 1, 5);
    await seedPersons(SOURCE, OTHER_BODY, 2, 3);
  });
  afterAll(async () => {
    await photos?.close();
    await down?.close();
    await bed?.close();
  });

  const photoCalls = () => photos.calls.filter((c) => c.path.startsWith('/photos/'));

  it('PHO-1 / PHO-2: only bodies with a pattern; photos stored, missing ones noted; 0.1 s between photos', async () => {
    const sleepsBefore = bed.clock.slotSleeps.length;
    const report = await runPhotosPass(bed.deps, { now: bed.now() });
    expect(report.photos).toEqual({ stored: 3, missing: 2 });
    expect(report.bodies).toEqual([{ sourceId: SOURCE, bodyId: BODY, persons: 5, due: 5, checked: 5 }]);
    expect(
      photoCalls()
        .map((c) => c.path)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5].map((n) => `/photos/${n}.jpg`));
    expect(await objectExists(bed, photoKey(SOURCE, personId(1, 1)))).toBe(true);
    const marks = await loadMarks(bed.deps, SOURCE, bodyKeyOf(BODY));
    expect(marks.get(personId(1, 1))).toMatchObject({ result: 'stored', etag, size: JPEG.length });
    expect(marks.get(personId(1, 4))).toMatchObject({ result: 'missing', code: 'HTTP_404' });
    // PHO-1: the pause between two photos (plus the host pace, also on the fake clock)
    const pauses = bed.clock.slotSleeps.slice(sleepsBefore).filter((ms) => ms === PHO_PAUSE_MS);
    expect(pauses.length).toBeGreaterThanOrEqual(4);
  });

  it('PHO-1 / PHO-2: nothing is asked again within 30 days; after that, conditionally (B-1), missing ones too', async () => {
    photos.calls.length = 0;
    bed.clock.advance(7 * DAY);
    const weekLater = await runPhotosPass(bed.deps, { now: bed.now() });
    expect(weekLater.photos).toEqual({});
    expect(photoCalls()).toHaveLength(0);
    bed.clock.advance(PHO_RECHECK_MS);
    const monthLater = await runPhotosPass(bed.deps, { now: bed.now() });
    expect(monthLater.photos).toEqual({ unchanged: 3, missing: 2 });
    const stored = photoCalls().filter((c) => PRESENT.has(/(\d+)\.jpg/.exec(c.path)?.[1] ?? ''));
    expect(stored.every((c) => c.headers['if-none-match'] === etag)).toBe(true);
  });

  it('PHO-2: an unreachable robots.txt notes nothing — the next run tries again', async () => {
    await putSource(bed, {
      sourceId: 'stadt-robots-down',
      systemUrl: 'https://ris-d.test/oparl/v1/system',
      photoUrlPatterns: { 'stadt-d': down.url('/photos/{personId}.jpg', 'photos-down.test') },
    });
    const body = 'https://ris-d.test/oparl/v1/bodies/1';
    await putBody(bed, 'stadt-robots-down', { id: body, listed: true, slug: 'stadt-d' });
    await seedPersons('stadt-robots-down', body, 1, 2);
    const report = await runPhotosPass(bed.deps, { now: bed.now() });
    expect(report.photos['not-noted:ROBOTS_UNREACHABLE']).toBeGreaterThanOrEqual(1);
    expect(down.calls.filter((c) => c.path.startsWith('/photos/'))).toHaveLength(0);
    expect((await loadMarks(bed.deps, 'stadt-robots-down', bodyKeyOf(body))).size).toBe(0);
    await putSource(bed, {
      sourceId: 'stadt-robots-down',
      systemUrl: 'https://ris-d.test/oparl/v1/system',
      active: false,
    });
  });

  it.each([
    ['inactive', { active: false }],
    ['file fetching off', { fileFetching: false }],
    ['spared (ERR-6)', {}],
  ])('PHO-3: %s → no photos, nothing noted', async (tag, config) => {
    const sourceId = `stadt-pho3-${['inactive', 'file fetching off', 'spared (ERR-6)'].indexOf(tag)}`;
    const body = `https://ris-${sourceId}.test/oparl/v1/bodies/1`;
    await putSource(bed, {
      sourceId,
      systemUrl: `https://ris-${sourceId}.test/oparl/v1/system`,
      photoUrlPatterns: { [body]: photos.url('/photos/{personId}.jpg', 'photos.test') },
      ...config,
    });
    if (tag.startsWith('spared')) await setFailureStreak(bed, sourceId, 3);
    await putBody(bed, sourceId, { id: body, listed: true });
    await seedPersons(sourceId, body, 1, 2);
    photos.calls.length = 0;
    const report = await runPhotosPass(bed.deps, { now: bed.now() });
    expect(report.skippedSources.map((s) => s.sourceId)).toContain(sourceId);
    expect(photoCalls()).toHaveLength(0);
    expect((await loadMarks(bed.deps, sourceId, bodyKeyOf(body))).size).toBe(0);
    await putSource(bed, {
      sourceId,
      systemUrl: `https://ris-${sourceId}.test/oparl/v1/system`,
      active: false,
    });
  });

  it(`PHO-1: at most ${PHO_MAX_PERSONS_PER_BODY} persons per body and run — never checked first, then the oldest check`, () => {
    const now = new Date('2026-03-02T02:00:00Z');
    const persons = Array.from({ length: 600 }, (_, i) => ({ id: `p${String(i).padStart(3, '0')}` }));
    const marks = new Map<string, { checkedAt: string }>();
    // p000…p099: checked 40 days ago (due), p100…p199: 10 days ago (not due), the rest never
    for (let i = 0; i < 200; i++) {
      const days = i < 100 ? 40 - i / 10 : 10;
      marks.set(`p${String(i).padStart(3, '0')}`, {
        checkedAt: new Date(now.getTime() - days * DAY).toISOString(),
      });
    }
    const due = selectPersonsForPhotos(persons, marks, now, {
      limit: PHO_MAX_PERSONS_PER_BODY,
      recheckMs: PHO_RECHECK_MS,
    });
    expect(due).toHaveLength(500);
    expect(due.slice(0, 400).every((p) => Number(p.id.slice(1)) >= 200)).toBe(true);
    expect(due[400]?.id).toBe('p000'); // the oldest check next
    expect(due.some((p) => ['p150', 'p199'].includes(p.id))).toBe(false);
  });

  it('PHO-1: photo URLs from the pattern — {personId} is the id’s last segment, {personName} the name, both encoded', () => {
    const person = { id: 'https://ris.example/oparl/person/4711', name: 'Dr. Müller-Lüdenscheidt' };
    expect(photoUrl('https://ris.example/fotos/{personId}.jpg', person)).toBe(
      'https://ris.example/fotos/4711.jpg',
    );
    expect(photoUrl('https://ris.example/bild?name={personName}', person)).toBe(
      'https://ris.example/bild?name=Dr.%20M%C3%BCller-L%C3%BCdenscheidt',
    );
    expect(photoUrl('https://ris.example/bild?name={personName}', { id: person.id })).toBeUndefined();
    expect(photoUrl('javascript:{personId}', person)).toBeUndefined();
  });
});
