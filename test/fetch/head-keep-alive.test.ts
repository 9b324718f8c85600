import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { api, closeAfterEach, routes, startTestServer, status } from '../support/fetch-kit';

const { track, kit } = closeAfterEach();

/**
 * Issue 28 (deletion-check CPU): a HEAD keeps its connection, as a GET does — the DEL-2 samples of one
 * server (2 s apart, RATE-6) no longer each open a new TCP/TLS connection. undici's default closes it
 * after every HEAD; the fetcher asks it not to (shared/fetch/exchange.ts).
 */
describe('HEAD requests keep the connection alive', () => {
  it('HEADs to one server after the first open no new connection', async () => {
    const server = track(await startTestServer(routes({ '/doc.pdf': status(200, { etag: '"v1"' }) })));
    const k = kit();
    const head = () => k.fetcher.fetch(server.url('/doc.pdf'), api({ purpose: 'file', method: 'HEAD' }));

    // The first HEAD (after robots.txt, whose connection may not be back in the pool yet).
    expect(await head()).toMatchObject({ status: 200, etag: '"v1"' });
    const opened = server.connections;
    for (let i = 0; i < 3; i++) expect(await head()).toMatchObject({ status: 200, etag: '"v1"' });

    expect(server.callsTo('/doc.pdf').map((c) => c.method)).toEqual(['HEAD', 'HEAD', 'HEAD', 'HEAD']);
    // Before: each HEAD closed its connection, so each of the three opened one more.
    expect(server.connections).toBe(opened);
  });

  it('a server that wrongly sends a body with its HEAD answer: every later request still gets its own answer', async () => {
    // Raw HTTP/1.1: a HEAD is answered with its headers and (wrongly) the 11-byte body a GET would get.
    const sockets = new Set<Socket>();
    let connections = 0;
    const raw = createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        for (let end = buffered.indexOf('\r\n\r\n'); end >= 0; end = buffered.indexOf('\r\n\r\n')) {
          const head = buffered.slice(0, end);
          buffered = buffered.slice(end + 4);
          const path = head.split(' ')[1];
          const body = path === '/robots.txt' ? 'User-agent: *\nAllow: /\n' : 'hello world';
          const headers = `HTTP/1.1 200 OK\r\nconnection: keep-alive\r\ncontent-length: ${body.length}\r\netag: "${path}"\r\n\r\n`;
          socket.write(headers + body);
        }
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    track({
      close: () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          raw.close(() => resolve());
        }),
    });
    const { port } = raw.address() as { port: number };
    const k = kit();

    for (const n of [1, 2, 3]) {
      const result = await k.fetcher.fetch(
        `http://ris-a.test:${port}/doc-${n}.pdf`,
        api({ purpose: 'file', method: 'HEAD' }),
      );
      expect(result).toMatchObject({ status: 200, etag: `"/doc-${n}.pdf"`, attempts: 1 });
    }
    // The stray body broke each connection it came on; the next HEAD went over a new one.
    expect(connections).toBeGreaterThanOrEqual(3);
  });
});
