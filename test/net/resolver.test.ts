import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertLiteralHostAllowed,
  createGuardedAgent,
  createGuardedConnector,
  createGuardedLookup,
  createTestResolver,
} from '../../shared/net';

// RED-2 (1) and DESIGN "Local and test": the guard judges the addresses the socket connects to.
// Every refusal here happens before a packet is sent: no test traffic leaves loopback.

function lookupOnce(
  lookup: ReturnType<typeof createGuardedLookup>,
  hostname: string,
  options: { all?: boolean; family?: number },
): Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve) => {
    lookup(
      hostname,
      options as never,
      ((error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) =>
        resolve({ error, address, family })) as never,
    );
  });
}

describe('test resolver', () => {
  it('maps any *.test name to 127.0.0.1 and explicit names to their answers', async () => {
    const resolver = createTestResolver({ map: { 'evil.test': '10.0.0.1', 'v6.test': ['::1'] } });
    expect(await resolver.resolve('ris-a.test')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await resolver.resolve('RIS-A.TEST')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await resolver.resolve('evil.test')).toEqual([{ address: '10.0.0.1', family: 4 }]);
    expect(await resolver.resolve('v6.test')).toEqual([{ address: '::1', family: 6 }]);
  });

  it('fails every other name as not found, so tests cannot reach the network', async () => {
    await expect(createTestResolver().resolve('example.com')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('RED-2: guarded lookup', () => {
  const resolver = createTestResolver({
    map: {
      'private.test': '10.0.0.1',
      'metadata.test': '169.254.169.254',
      'mixed.test': ['127.0.0.1', '192.168.0.10'],
      'dual.test': ['127.0.0.1', '::1'],
    },
  });
  const lookup = createGuardedLookup({ resolver, allowLoopback: true });

  it.each([
    ['private.test', '10.0.0.1', 'private'],
    ['metadata.test', '169.254.169.254', 'link-local'],
    ['mixed.test', '192.168.0.10', 'private'],
  ])('refuses %s (resolves to %s)', async (hostname, address, addressClass) => {
    for (const all of [true, false]) {
      const { error } = await lookupOnce(lookup, hostname, { all });
      expect(error).toMatchObject({ code: 'ADDRESS_NOT_PUBLIC', hostname, address, addressClass });
    }
  });

  it('honours options.all: an array of addresses, or one address and its family', async () => {
    const many = await lookupOnce(lookup, 'dual.test', { all: true });
    expect(many.error).toBeNull();
    expect(many.address).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    const one = await lookupOnce(lookup, 'dual.test', {});
    expect([one.address, one.family]).toEqual(['127.0.0.1', 4]);
    const v6 = await lookupOnce(lookup, 'dual.test', { family: 6 });
    expect([v6.address, v6.family]).toEqual(['::1', 6]);
  });

  it('refuses loopback unless loopback is explicitly allowed (local mode --allow-loopback)', async () => {
    const strict = createGuardedLookup({ resolver });
    const { error } = await lookupOnce(strict, 'ris-a.test', { all: true });
    expect(error).toMatchObject({ code: 'ADDRESS_NOT_PUBLIC', addressClass: 'loopback' });
  });
});

describe('RED-2: IP literals are checked before connecting', () => {
  it.each(['127.0.0.1', '[::1]', '10.1.2.3', '169.254.169.254', '0.0.0.0', '[::ffff:7f00:1]', '[fd00::1]'])(
    'refuses %s without allowLoopback',
    (hostname) => {
      expect(() => assertLiteralHostAllowed(hostname)).toThrow(
        expect.objectContaining({ code: 'ADDRESS_NOT_PUBLIC' }),
      );
    },
  );

  it('allows loopback literals only with allowLoopback, and never private ones', () => {
    expect(assertLiteralHostAllowed('127.0.0.1', { allowLoopback: true })).toBe(true);
    expect(assertLiteralHostAllowed('[::1]', { allowLoopback: true })).toBe(true);
    expect(() => assertLiteralHostAllowed('10.0.0.1', { allowLoopback: true })).toThrow();
    expect(assertLiteralHostAllowed('ris.example.de')).toBe(false);
    expect(assertLiteralHostAllowed('8.8.8.8')).toBe(true);
  });

  it('the connector refuses an IP-literal host itself (the lookup hook never sees literals)', async () => {
    const connect = createGuardedConnector({ resolver: createTestResolver() });
    const error = await new Promise<unknown>((resolve) =>
      connect({ hostname: '127.0.0.1', protocol: 'http:', port: '1' }, (...args) => resolve(args[0])),
    );
    expect(error).toMatchObject({ code: 'ADDRESS_NOT_PUBLIC', addressClass: 'loopback' });
  });
});

describe('RED-2: guarded agent against a real loopback server', () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('connects to a *.test name in local mode, refuses names resolving to private or metadata addresses', async () => {
    const agent = createGuardedAgent({
      resolver: createTestResolver({ map: { 'evil.test': '10.0.0.1', 'meta.test': '169.254.169.254' } }),
      allowLoopback: true,
    });
    try {
      const good = await request(`http://ris-a.test:${port}/`, { dispatcher: agent });
      expect(await good.body.text()).toBe('ok');
      const before = hits;
      await expect(request(`http://evil.test:${port}/`, { dispatcher: agent })).rejects.toMatchObject({
        code: 'ADDRESS_NOT_PUBLIC',
      });
      await expect(
        request(`http://meta.test:${port}/latest/meta-data/`, { dispatcher: agent }),
      ).rejects.toMatchObject({
        code: 'ADDRESS_NOT_PUBLIC',
      });
      expect(hits).toBe(before);
    } finally {
      await agent.close();
    }
  });

  it('refuses http://127.0.0.1/ and a loopback name without allowLoopback; the server sees nothing', async () => {
    const agent = createGuardedAgent({ resolver: createTestResolver() });
    const before = hits;
    try {
      await expect(request(`http://127.0.0.1:${port}/`, { dispatcher: agent })).rejects.toMatchObject({
        code: 'ADDRESS_NOT_PUBLIC',
      });
      await expect(request(`http://ris-a.test:${port}/`, { dispatcher: agent })).rejects.toMatchObject({
        code: 'ADDRESS_NOT_PUBLIC',
      });
      expect(hits).toBe(before);
    } finally {
      await agent.close();
    }
  });
});
