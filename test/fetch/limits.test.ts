import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createHostSlots, type PacedHostSlots } from '../../shared/slots';
import {
  api,
  closeAfterEach,
  InstantClock,
  ok,
  rejectionOf,
  routes,
  startTestServer,
} from '../support/fetch-kit';

const { cleanups, kit, council } = closeAfterEach();

async function server(table: Parameters<typeof routes>[0]) {
  const s = await startTestServer(routes(table));
  cleanups.push(() => s.close());
  return s;
}

describe('response limits', () => {
  it('a Content-Length longer than the body (the connection closes early) is BODY_INCOMPLETE', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'contentLengthMismatch', extraBytes: 500 });
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api({ maxAttempts: 1 })));

    expect(error).toMatchObject({ code: 'BODY_INCOMPLETE', retryable: true });
  });

  it('a declared Content-Length above the limit is refused before the body is read', async () => {
    const s = await server({
      '/big': ok('x'.repeat(5000), { 'content-type': 'application/json', 'content-length': '5000' }),
    });
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(s.url('/big'), api({ maxBytes: 1000 })));

    expect(error).toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      stage: 'declared',
      maxBytes: 1000,
      retryable: false,
    });
  });

  it('a chunked body growing past the limit fails while streaming (RESPONSE_TOO_LARGE)', async () => {
    const s = await server({
      '/chunked': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 20; i += 1) res.write('y'.repeat(1000));
        res.end();
      },
    });
    const k = kit();

    await expect(k.fetcher.fetch(s.url('/chunked'), api({ maxBytes: 4096 }))).rejects.toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      stage: 'received',
    });
  });

  it('a gzip bomb stops at the limit of decoded bytes (RESPONSE_TOO_LARGE, stage decoded)', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'gzipBomb', inflatedBytes: 64 * 1024 * 1024 });
    const k = kit();
    const before = process.memoryUsage().rss;

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api({ maxBytes: 1024 * 1024 })));

    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', stage: 'decoded' });
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync], // raw deflate, as some servers send it
    ['br', brotliCompressSync],
  ] as const)('decodes Content-Encoding %s', async (encoding, compress) => {
    const text = JSON.stringify({ name: 'Stadt Köln', items: Array.from({ length: 200 }, (_, i) => i) });
    const s = await server({
      '/z': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
        res.end(compress(Buffer.from(text)));
      },
    });
    const k = kit();

    const result = await k.fetcher.fetch(s.url('/z'), api());

    expect(result.body.toString('utf8')).toBe(text);
    expect(s.callsTo('/z')[0]?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('an unknown Content-Encoding is CONTENT_ENCODING, not garbage', async () => {
    const s = await server({
      '/z': ok('abc', { 'content-type': 'application/json', 'content-encoding': 'zstd' }),
    });
    const k = kit();

    await expect(k.fetcher.fetch(s.url('/z'), api())).rejects.toMatchObject({ code: 'CONTENT_ENCODING' });
  });

  it('a slowloris body (one byte every 50 ms) ends at the whole-body deadline: TIMEOUT, phase body', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'slowBody', intervalMs: 50, chunkBytes: 1 });
    const k = kit();
    const started = Date.now();

    const error = await rejectionOf(
      k.fetcher.fetch(c.systemUrl, api({ bodyTimeoutMs: 300, maxAttempts: 1 })),
    );

    expect(error).toMatchObject({ code: 'TIMEOUT', phase: 'body', retryable: true });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('DOC-5: an HTML page instead of a file is HTML_INSTEAD_OF_FILE (by Content-Type)', async () => {
    const c = await council();
    c.setFault('/files/*', { kind: 'contentType', contentType: 'text/html; charset=utf-8' });
    const k = kit();

    await expect(k.fetcher.fetch(`${c.url}/files/1/1.pdf`, api({ purpose: 'file' }))).rejects.toMatchObject({
      code: 'HTML_INSTEAD_OF_FILE',
      retryable: false,
    });
  });

  it.each([
    '<!DOCTYPE html><html><body>Bitte anmelden</body></html>',
    '\ufeff  <html lang="de"><body>Captcha</body>',
  ])('DOC-5: an HTML body served as application/pdf is sniffed: %s', async (html) => {
    const s = await server({ '/doc.pdf': ok(html, { 'content-type': 'application/pdf' }) });
    const k = kit();

    await expect(k.fetcher.fetch(s.url('/doc.pdf'), api({ purpose: 'file' }))).rejects.toMatchObject({
      code: 'HTML_INSTEAD_OF_FILE',
    });
    await expect(k.fetcher.stream(s.url('/doc.pdf'), api({ purpose: 'file' }))).rejects.toMatchObject({
      code: 'HTML_INSTEAD_OF_FILE',
    });
  });

  it('files: a real PDF passes; Accept is */*', async () => {
    const c = await council();
    const k = kit();

    const result = await k.fetcher.fetch(`${c.url}/files/1/1.pdf`, api({ purpose: 'file' }));

    expect(result.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(c.requests.at(-1)?.accept).toBe('*/*');
  });
});

describe('streamed files', () => {
  it('stream(): the body flows decoded; the in-flight place is released once it is consumed', async () => {
    const c = await council();
    const clock = new InstantClock();
    const slots: PacedHostSlots = createHostSlots({ clock });
    const k = kit({ clock, slots });

    const result = await k.fetcher.stream(`${c.url}/files/1/1.pdf`, api({ purpose: 'file' }));
    expect((await slots.hostState('ris-a.test')).inFlight).toBe(1);
    const chunks: Buffer[] = [];
    for await (const chunk of result.body) chunks.push(chunk as Buffer);
    await new Promise((resolve) => setImmediate(resolve));

    expect(Buffer.concat(chunks).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await slots.hostState('ris-a.test')).inFlight).toBe(0);
  });

  it('stream(): the limit fails the stream while it flows, and the place is released', async () => {
    const s = await server({
      '/big.pdf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.write('%PDF-1.4\n');
        for (let i = 0; i < 200; i += 1) res.write(Buffer.alloc(10_000, 0x20));
        res.end();
      },
    });
    const clock = new InstantClock();
    const slots = createHostSlots({ clock });
    const k = kit({ clock, slots });

    const result = await k.fetcher.stream(s.url('/big.pdf'), api({ purpose: 'file', maxBytes: 500_000 }));
    const error = await rejectionOf(
      (async () => {
        for await (const _ of result.body) {
          // drain
        }
      })(),
    );
    await new Promise((resolve) => setImmediate(resolve));

    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    expect((await slots.hostState('ris-a.test')).inFlight).toBe(0);
  });

  it('buffered fetch: the place is released after the body was read', async () => {
    const c = await council();
    const clock = new InstantClock();
    const slots = createHostSlots({ clock });
    const k = kit({ clock, slots });

    await k.fetcher.fetch(c.systemUrl, api());

    expect((await slots.hostState('ris-a.test')).inFlight).toBe(0);
  });
});

describe('conditional requests and HEAD (B-1, DEL-1/2)', () => {
  it('a file fetched again with its validators costs a 304, returned as notModified', async () => {
    const c = await council();
    const k = kit();
    const first = await k.fetcher.fetch(`${c.url}/files/1/2.pdf`, api({ purpose: 'file' }));

    const again = await k.fetcher.fetch(
      `${c.url}/files/1/2.pdf`,
      api({
        purpose: 'file',
        conditional: {
          ...(first.etag ? { etag: first.etag } : {}),
          ...(first.lastModified ? { lastModified: first.lastModified } : {}),
        },
      }),
    );

    expect(again).toMatchObject({ status: 304, notModified: true });
    expect(again.body.length).toBe(0);
    expect(c.requests.at(-1)?.conditional).toBe(true);
  });

  it('HEAD is sent as HEAD and returns headers only', async () => {
    const c = await council();
    const k = kit();

    const result = await k.fetcher.fetch(`${c.url}/files/1/1.pdf`, api({ purpose: 'file', method: 'HEAD' }));

    expect(result.status).toBe(200);
    expect(result.body.length).toBe(0);
    expect(c.requests.at(-1)?.method).toBe('HEAD');
  });
});
