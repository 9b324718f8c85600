import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Delivery,
  deliveryAsked,
  fileHeaders,
  originalUrlFor,
  PREVIEW_DOWNLOAD_PARAM,
  PREVIEW_STORED_REDIRECT_MAX_AGE_S,
  PreviewBadRequestError,
  previewRequestOf,
} from '../../shared/preview';
import {
  followStored,
  open,
  type PreviewBed,
  putBody,
  putSource,
  recordFile,
  recordStoredFile,
  startPreviewBed,
} from '../support/preview-bed';
import { countCalls } from '../support/write-counter';

/**
 * OParl 1.1 `File.downloadUrl` is the URL "to download the file": the API links it as
 * `/documents/{docId}?download=1` (docs/mirror-api.md), and the document endpoint then answers every type
 * as an attachment — a PDF included, which `accessUrl` (no query) shows inline — on every path: the
 * redirect to a stored copy (the disposition is signed into the presigned URL), the polite fetch's stream,
 * and a fetch in flight that a visitor joins; where we request nothing (PRV-4) it goes to the origin's
 * own `downloadUrl`. PRV-3's safe headers hold for both: active types never under
 * their own type, `nosniff`, a CSP sandbox for everything but PDF, the file name sanitized.
 */

const SANDBOX = "default-src 'none'; sandbox";

describe('the document endpoint’s query (pure)', () => {
  it.each<[string, Delivery]>([
    ['', 'view'],
    [`${PREVIEW_DOWNLOAD_PARAM}=1`, 'download'],
    // Parameters that are not ours change nothing: CloudFront forwards none of them, so the function
    // must answer the same without them (a cache-buster, a newsletter's utm_*).
    ['utm_source=newsletter&v=2', 'view'],
    ['download=1&utm_source=newsletter', 'download'],
    // Names are case-sensitive, as CloudFront's allow-list is: `Download` is someone else's parameter.
    ['Download=1', 'view'],
  ])('?%s → %s', (query, expected) => {
    // act / assess
    expect(deliveryAsked(new URLSearchParams(query))).toBe(expected);
  });

  it.each([
    'download=0',
    'download=true',
    'download=yes',
    'download=',
    'download',
    'download=01',
    'download=1&download=1',
  ])('?%s → refused (PREVIEW_BAD_REQUEST): our one parameter has one value', (query) => {
    // act
    const ask = () => deliveryAsked(new URLSearchParams(query));
    // assess
    expect(ask).toThrow(PreviewBadRequestError);
    expect(ask).toThrow(expect.objectContaining({ code: 'PREVIEW_BAD_REQUEST' }));
  });

  it('no query at all (an adapter that has none) is a view', () => {
    expect(deliveryAsked(undefined)).toBe('view');
  });

  it.each<[string, Delivery, string, string, string | undefined]>([
    ['application/pdf', 'view', 'application/pdf', 'inline', undefined],
    ['application/pdf', 'download', 'application/pdf', 'attachment', undefined],
    ['application/PDF; charset=binary', 'download', 'application/pdf', 'attachment', undefined],
    ['text/html; charset=utf-8', 'view', 'application/octet-stream', 'attachment', SANDBOX],
    ['text/html; charset=utf-8', 'download', 'application/octet-stream', 'attachment', SANDBOX],
    ['image/svg+xml', 'download', 'application/octet-stream', 'attachment', SANDBOX],
    ['image/png', 'view', 'image/png', 'attachment', SANDBOX],
    ['image/png', 'download', 'image/png', 'attachment', SANDBOX],
  ])('PRV-3: %s asked as %s → %s, %s', (type, delivery, servedType, disposition, csp) => {
    // act
    const headers = fileHeaders(type, 'datei.bin', { delivery });
    // assess
    expect(headers['content-type']).toBe(servedType);
    expect(headers['content-disposition']).toBe(`${disposition}; filename="datei.bin"`);
    expect(headers['content-security-policy']).toBe(csp);
    expect(headers['x-content-type-options']).toBe('nosniff');
  });

  it.each<[string, { url: string; downloadUrl?: string }, Delivery, string]>([
    [
      'a view',
      { url: 'https://ris.test/f/1.pdf', downloadUrl: 'https://ris.test/f/1.pdf?dl=1' },
      'view',
      'https://ris.test/f/1.pdf',
    ],
    [
      'a download',
      { url: 'https://ris.test/f/1.pdf', downloadUrl: 'https://ris.test/f/1.pdf?dl=1' },
      'download',
      'https://ris.test/f/1.pdf?dl=1',
    ],
    [
      'a download, no downloadUrl recorded',
      { url: 'https://ris.test/f/2.pdf' },
      'download',
      'https://ris.test/f/2.pdf',
    ],
    [
      'a download, a downloadUrl that is no http(s) URL',
      { url: 'https://ris.test/f/3.pdf', downloadUrl: 'javascript:alert(1)' },
      'download',
      'https://ris.test/f/3.pdf',
    ],
  ])('PRV-4: %s is sent to the origin’s own link', (_case, document, delivery, expected) => {
    // act / assess
    expect(originalUrlFor(document, delivery)).toBe(expected);
  });

  it('the Lambda adapter hands the Function URL’s query string to the handler (CloudFront forwards `download`)', () => {
    // prepare
    const requestContext = { http: { method: 'GET', sourceIp: '130.176.1.1' } };
    const path = `/documents/${'a'.repeat(64)}`;
    // act
    const request = previewRequestOf({
      rawPath: path,
      rawQueryString: 'download=1',
      headers: { 'cloudfront-viewer-address': '198.51.100.7:46532' },
      requestContext,
    });
    const plain = previewRequestOf({ rawPath: path, requestContext });
    // assess
    expect(request).toMatchObject({ method: 'GET', path, visitorAddress: '198.51.100.7' });
    expect(deliveryAsked(request.query)).toBe('download');
    expect(deliveryAsked(plain.query)).toBe('view');
    expect(plain.visitorAddress).toBe('130.176.1.1');
  });
});

/**
 * A council's file server on loopback: `/files/<name>` answers the bytes of `fileBytes(name)` as a PDF,
 * `.odt` as an OpenDocument text. A held path sends its first half, then waits for `release`.
 */
interface FileCouncil {
  server: Server;
  url: string;
  /** Paths of the file requests, as received. */
  requests: string[];
  hold(path: string): { halfSent: Promise<void>; release(): void };
}

const FILE_BYTES = 64 * 1024;

function fileBytes(path: string): Buffer {
  const bytes = Buffer.alloc(FILE_BYTES, 0x20);
  bytes.write(path.endsWith('.odt') ? `PK\u0003\u0004 ${path}\n` : `%PDF-1.7\n% ${path}\n`);
  return bytes;
}

async function startFileCouncil(): Promise<FileCouncil> {
  const requests: string[] = [];
  const holds = new Map<string, { halfSent: () => void; released: Promise<void> }>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      return;
    }
    if (!path.startsWith('/files/')) {
      res.writeHead(404).end();
      return;
    }
    requests.push(path);
    const bytes = fileBytes(path);
    const type = path.endsWith('.odt') ? 'application/vnd.oasis.opendocument.text' : 'application/pdf';
    res.writeHead(200, { 'content-type': type, 'content-length': String(bytes.length) });
    const held = holds.get(path);
    if (!held) {
      res.end(bytes);
      return;
    }
    holds.delete(path);
    const middle = bytes.length / 2;
    res.write(bytes.subarray(0, middle), () => {
      held.halfSent();
      void held.released.then(() => res.end(bytes.subarray(middle)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://ris-dl.test:${port}`,
    requests,
    hold(path) {
      let halfSent = () => {};
      const sent = new Promise<void>((resolve) => {
        halfSent = resolve;
      });
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      holds.set(path, { halfSent, released });
      return { halfSent: sent, release };
    },
  };
}

describe('OParl File.downloadUrl: ?download=1 on the document endpoint', () => {
  let bed: PreviewBed;
  let council: FileCouncil;
  const SRC = 'dl';
  const BODY_LISTED = 'https://ris-dl.test/oparl/v1/bodies/1';
  const BODY_UNLISTED = 'https://ris-dl.test/oparl/v1/bodies/2';
  let visitor = 0;
  const nextVisitor = () => {
    visitor += 1;
    return `203.0.113.${visitor}`;
  };
  /** A document the sync recorded at `path` of the council (not stored: every opening fetches it). */
  const unstored = (path: string) =>
    recordFile(bed, { sourceId: SRC, bodyId: BODY_UNLISTED, url: `${council.url}${path}`, listed: false });
  const stored = (path: string, bytes: Buffer, contentType: string) =>
    recordStoredFile(
      bed,
      { sourceId: SRC, bodyId: BODY_LISTED, url: `${council.url}${path}` },
      bytes,
      contentType,
    );

  beforeAll(async () => {
    bed = await startPreviewBed();
    council = await startFileCouncil();
    await putSource(bed, { sourceId: SRC, systemUrl: `${council.url}/oparl/v1/system` });
    await putSource(bed, {
      sourceId: 'dl-off',
      systemUrl: 'https://ris-dl-off.test/oparl/v1/system',
      fileFetching: false,
    });
    await putBody(bed, SRC, { id: BODY_LISTED, listed: true });
    await putBody(bed, SRC, { id: BODY_UNLISTED, listed: false });
  }, 60_000);
  afterAll(async () => {
    council?.server.closeAllConnections();
    await new Promise<void>((resolve) => (council ? council.server.close(() => resolve()) : resolve()));
    await bed?.close();
  });

  it('PRV-3: a stored PDF with ?download=1 → a 302 to another presigned URL, its signed response-content-disposition attachment; the plain URL stays inline', async () => {
    // prepare
    const bytes = fileBytes('/files/protokoll.pdf');
    const docId = await stored('/files/protokoll.pdf', bytes, 'application/pdf');
    council.requests.length = 0;
    // act
    const view = await open(bed, docId, nextVisitor());
    const download = await open(bed, docId, nextVisitor(), 'download=1');
    const viewed = await followStored(bed, view);
    const downloaded = await followStored(bed, download);
    // assess: two URLs, each with its disposition inside the signature
    const viewUrl = new URL(view.headers.get('location') ?? '');
    const downloadUrl = new URL(download.headers.get('location') ?? '');
    expect(view.status).toBe(302);
    expect(download.status).toBe(302);
    expect(viewUrl.searchParams.get('response-content-disposition')).toBe('inline; filename="protokoll.pdf"');
    expect(downloadUrl.searchParams.get('response-content-disposition')).toBe(
      'attachment; filename="protokoll.pdf"',
    );
    expect(downloadUrl.searchParams.get('response-content-type')).toBe('application/pdf');
    expect(downloadUrl.searchParams.get('X-Amz-Signature')).not.toBe(
      viewUrl.searchParams.get('X-Amz-Signature'),
    );
    for (const r of [view, download]) {
      expect(r.headers.get('x-preview-source')).toBe('stored');
      expect(r.headers.get('cache-control')).toBe(`public, max-age=${PREVIEW_STORED_REDIRECT_MAX_AGE_S}`);
    }
    // S3 (s3rver checks the signature) answers with the signed headers.
    expect(viewed.headers.get('content-disposition')).toBe('inline; filename="protokoll.pdf"');
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('content-disposition')).toBe('attachment; filename="protokoll.pdf"');
    expect(downloaded.headers.get('content-type')).toBe('application/pdf');
    expect(downloaded.body.equals(bytes)).toBe(true);
    expect(council.requests).toEqual([]);
  });

  it('PRV-3: a stored HTML file with ?download=1 is still octet-stream and an attachment', async () => {
    // prepare
    const docId = await stored('/files/seite.html', Buffer.from('<script>alert(1)</script>'), 'text/html');
    // act
    const copy = await followStored(bed, await open(bed, docId, nextVisitor(), 'download=1'));
    // assess
    expect(copy.headers.get('content-type')).toBe('application/octet-stream');
    expect(copy.headers.get('content-disposition')).toBe('attachment; filename="seite.html"');
  });

  it('PRV-1: an unstored PDF fetched politely with ?download=1 streams as an attachment — PDF type, nosniff, the file name sanitized', async () => {
    // prepare: a name with a space and quotes at the council
    const path = '/files/Bericht%20%22final%22.pdf';
    const docId = await unstored(path);
    council.requests.length = 0;
    // act
    const answer = await open(bed, docId, nextVisitor(), 'download=1');
    // assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-preview-source')).toBe('fetched');
    expect(answer.headers.get('content-type')).toBe('application/pdf');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="Bericht_final_.pdf"');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toBeNull();
    expect(answer.body.equals(fileBytes(path))).toBe(true);
    expect(council.requests).toEqual([path]);
  });

  it('PRV-1: a fetched non-PDF keeps its attachment and CSP sandbox with ?download=1, and without', async () => {
    // prepare
    const path = '/files/vorlage.odt';
    const docId = await unstored(path);
    // act
    const download = await open(bed, docId, nextVisitor(), 'download=1');
    const view = await open(bed, docId, nextVisitor());
    // assess
    for (const r of [download, view]) {
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/vnd.oasis.opendocument.text');
      expect(r.headers.get('content-disposition')).toBe('attachment; filename="vorlage.odt"');
      expect(r.headers.get('content-security-policy')).toBe(SANDBOX);
    }
  });

  it.each<[Delivery, Delivery]>([
    ['view', 'download'],
    ['download', 'view'],
  ])(
    'PRV-2: a %s visitor’s fetch in flight, joined by a %s visitor — one source request, each gets the disposition asked for',
    async (leaderAsks, joinerAsks) => {
      // prepare: the council holds its answer after the first half, so the flight is under way
      const path = `/files/sitzung-${leaderAsks}.pdf`;
      const docId = await unstored(path);
      const held = council.hold(path);
      council.requests.length = 0;
      const query = (d: Delivery) => (d === 'download' ? 'download=1' : '');
      // act
      const leading = open(bed, docId, nextVisitor(), query(leaderAsks));
      await held.halfSent;
      const joining = open(bed, docId, nextVisitor(), query(joinerAsks));
      held.release();
      const [leader, joiner] = await Promise.all([leading, joining]);
      // assess
      const disposition = (d: Delivery) =>
        `${d === 'download' ? 'attachment' : 'inline'}; filename="sitzung-${leaderAsks}.pdf"`;
      expect(leader.headers.get('x-preview-source')).toBe('fetched');
      expect(joiner.headers.get('x-preview-source')).toBe('coalesced');
      expect(leader.headers.get('content-disposition')).toBe(disposition(leaderAsks));
      expect(joiner.headers.get('content-disposition')).toBe(disposition(joinerAsks));
      expect(joiner.headers.get('content-type')).toBe('application/pdf');
      expect(joiner.headers.get('x-content-type-options')).toBe('nosniff');
      expect(joiner.body.equals(leader.body)).toBe(true);
      expect(leader.body.equals(fileBytes(path))).toBe(true);
      expect(council.requests).toEqual([path]);
    },
  );

  it('PRV-4: file fetching off — a download goes to the origin’s own downloadUrl, a view to its accessUrl; nothing requested', async () => {
    // prepare
    const accessUrl = 'https://ris-dl-off.test/files/9.pdf';
    const downloadUrl = 'https://ris-dl-off.test/files/9.pdf?download=1';
    const docId = await recordFile(bed, {
      sourceId: 'dl-off',
      bodyId: 'b',
      url: accessUrl,
      listed: true,
      downloadUrl,
    });
    const fetchesBefore = bed.events.length;
    // act
    const view = await open(bed, docId, nextVisitor());
    const download = await open(bed, docId, nextVisitor(), 'download=1');
    // assess
    expect(view.status).toBe(302);
    expect(view.headers.get('location')).toBe(accessUrl);
    expect(download.status).toBe(302);
    expect(download.headers.get('location')).toBe(downloadUrl);
    expect(download.headers.get('cache-control')).toBe('no-store');
    expect(bed.events.length).toBe(fetchesBefore);
  });

  it('a `download` value other than 1 → 400 before anything is read or requested; unknown parameters change nothing', async () => {
    // prepare
    const docId = await stored(
      '/files/tagesordnung.pdf',
      fileBytes('/files/tagesordnung.pdf'),
      'application/pdf',
    );
    const dynamo = countCalls(bed.aws.clients.dynamo);
    const fetchesBefore = bed.events.length;
    // act
    const refused = await Promise.all(
      ['download=true', 'download=0', 'download=1&download=1'].map((q) => open(bed, docId, nextVisitor(), q)),
    );
    const readsWhenRefused = dynamo.calls();
    const tracked = await open(bed, docId, nextVisitor(), 'utm_source=newsletter&Download=1');
    // assess
    for (const r of refused) {
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('location')).toBeNull();
      expect(r.body.toString()).toContain('download=1');
    }
    expect(readsWhenRefused).toEqual([]);
    expect(bed.events.length).toBe(fetchesBefore);
    const disposition = new URL(tracked.headers.get('location') ?? '').searchParams.get(
      'response-content-disposition',
    );
    expect(tracked.status).toBe(302);
    expect(disposition).toBe('inline; filename="tagesordnung.pdf"');
  });
});
