import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { api, closeAfterEach, rejectionOf } from '../support/fetch-kit';

// Council servers speak HTTPS: the guarded connector must hand TLS the server name (SNI and the
// certificate check) although it resolves names itself, and judge the address after the handshake too.
// The certificate (test/support/tls, valid for ris-tls.test and ris-tls-b.test until 2126) is trusted
// by these kits only.

const TLS_DIR = new URL('../support/tls/', import.meta.url);
const cert = readFileSync(new URL('cert.pem', TLS_DIR), 'utf8');
const key = readFileSync(new URL('key.pem', TLS_DIR), 'utf8');

interface TlsServer {
  port: number;
  seen: { path: string; servername: string }[];
  close(): Promise<void>;
}

async function startTlsServer(): Promise<TlsServer> {
  const seen: TlsServer['seen'] = [];
  const server: Server = createServer({ key, cert }, (req, res) => {
    seen.push({ path: req.url ?? '', servername: String((req.socket as TLSSocket).servername) });
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
    } else if (req.url === '/moved') {
      res.writeHead(301, { location: `https://ris-tls-b.test:${port}/page` }).end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('HTTPS through the guarded agent', () => {
  const { track, kit } = closeAfterEach();

  it('robots.txt and the page over TLS, with the hostname as SNI; a redirect to another name gets its own handshake', async () => {
    const server = track(await startTlsServer());
    const k = kit({ extraCa: cert });

    const page = await k.fetcher.fetch(`https://ris-tls.test:${server.port}/page`, api());
    const moved = await k.fetcher.fetch(`https://ris-tls.test:${server.port}/moved`, api());
    const refused = await rejectionOf(k.fetcher.fetch(`https://ris-tls.test:${server.port}/private`, api()));

    expect(page.status).toBe(200);
    expect(page.body.toString()).toBe('{"ok":true}');
    expect(moved).toMatchObject({ status: 200, finalUrl: `https://ris-tls-b.test:${server.port}/page` });
    expect(refused).toMatchObject({ code: 'ROBOTS_DISALLOWED' });
    expect(server.seen).toEqual([
      { path: '/robots.txt', servername: 'ris-tls.test' },
      { path: '/page', servername: 'ris-tls.test' },
      { path: '/moved', servername: 'ris-tls.test' },
      { path: '/robots.txt', servername: 'ris-tls-b.test' },
      { path: '/page', servername: 'ris-tls-b.test' },
    ]);
  });

  it('a certificate that does not name the host fails the handshake: NETWORK, and no request reaches the server', async () => {
    const server = track(await startTlsServer());
    const k = kit({ extraCa: cert });

    const error = await rejectionOf(
      k.fetcher.fetch(`https://ris-other.test:${server.port}/page`, api({ maxAttempts: 1 })),
    );

    // robots.txt could not be fetched either: deferred (ROB-8), never "allowed".
    expect(error).toMatchObject({ code: 'ROBOTS_UNREACHABLE' });
    expect(server.seen).toEqual([]);
  });

  it('the address guard holds for TLS connections: a name resolving to loopback is refused without --allow-loopback', async () => {
    const server = track(await startTlsServer());
    const k = kit({ extraCa: cert, allowLoopback: false });

    const error = await rejectionOf(k.fetcher.fetch(`https://ris-tls.test:${server.port}/page`, api()));

    expect(error).toMatchObject({ code: 'ADDRESS_NOT_PUBLIC' });
    expect(server.seen).toEqual([]);
  });
});
