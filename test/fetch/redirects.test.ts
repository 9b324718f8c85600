import { describe, expect, it } from 'vitest';
import { robotsScripts, startFakeCouncil } from '../../demo';
import { createHostSlots } from '../../shared/slots';
import {
  api,
  closeAfterEach,
  InstantClock,
  ok,
  recordingSlots,
  rejectionOf,
  routes,
  startTestServer,
  status,
} from '../support/fetch-kit';

const { cleanups, kit, council } = closeAfterEach();

describe('redirects (RED)', () => {
  it('RED-1: five redirects are followed, each hop recorded', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'redirectChain', hops: 5 });
    const k = kit();

    const result = await k.fetcher.fetch(c.systemUrl, api());

    expect(result.status).toBe(200);
    expect(result.redirects).toHaveLength(5);
    expect(result.url).toBe(c.systemUrl);
    expect(result.finalUrl).toMatch(/\/__hop\/0\/302\/oparl\/v1\/system$/);
  });

  it('RED-1: a sixth redirect ends the fetch with TOO_MANY_REDIRECTS and is not followed', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'redirectChain', hops: 6 });
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api()));

    expect(error).toMatchObject({ code: 'TOO_MANY_REDIRECTS', retryable: false });
    // robots.txt + the first URL + five followed hops; the sixth Location is never requested.
    expect(c.requests.map((r) => r.path).filter((p) => p !== '/robots.txt')).toHaveLength(6);
    expect(c.requests.some((r) => r.path === '/__hop/0/302/oparl/v1/system')).toBe(false);
  });

  it('RED-1: a redirect loop ends after the same limit', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'redirectLoop' });
    const k = kit();

    await expect(k.fetcher.fetch(c.systemUrl, api())).rejects.toMatchObject({ code: 'TOO_MANY_REDIRECTS' });
  });

  it.each([
    ['a literal metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a literal private address', 'http://10.0.0.1/'],
    ['the unspecified address (reaches localhost on Linux)', 'http://0.0.0.0:1/'],
    ['a unique-local IPv6 literal', 'http://[fd00::1]/'],
    ['IPv4-mapped metadata', 'http://[::ffff:169.254.169.254]/'],
    ['a name resolving to a private address', 'http://intranet.test/'],
    ['a name resolving to the metadata address', 'http://metadata.test/'],
  ])('RED-2: a redirect to %s is refused before connecting', async (_, location) => {
    const server = await startTestServer(routes({ '/go': status(302, { location }) }));
    cleanups.push(() => server.close());
    const k = kit({ resolverMap: { 'intranet.test': '10.0.0.1', 'metadata.test': '169.254.169.254' } });

    const error = await rejectionOf(k.fetcher.fetch(server.url('/go'), api()));

    expect(error).toMatchObject({ code: 'ADDRESS_NOT_PUBLIC', retryable: false });
    expect(k.events.at(-1)).toMatchObject({ kind: 'refused', errorCode: 'ADDRESS_NOT_PUBLIC', hop: 1 });
  });

  it('RED-2: the first URL itself at 127.0.0.1 is refused without --allow-loopback; the server sees nothing', async () => {
    const server = await startTestServer(routes({ '/x': ok() }));
    cleanups.push(() => server.close());
    const k = kit({ allowLoopback: false });

    await expect(k.fetcher.fetch(`http://127.0.0.1:${server.port}/x`, api())).rejects.toMatchObject({
      code: 'ADDRESS_NOT_PUBLIC',
    });
    await expect(k.fetcher.fetch(server.url('/x'), api())).rejects.toMatchObject({
      code: 'ADDRESS_NOT_PUBLIC',
    });
    expect(server.calls).toHaveLength(0);
  });

  it('RED-2 / RED-3: a redirect target disallowed by its robots.txt is not followed', async () => {
    const target = await startTestServer(
      routes({ '/doc': ok() }, 'User-agent: mandari-ingestor\nDisallow: /doc\n'),
    );
    const origin = await startTestServer(
      routes({ '/go': status(302, { location: target.url('/doc', 'ris-b.test') }) }),
    );
    cleanups.push(
      () => origin.close(),
      () => target.close(),
    );
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(origin.url('/go'), api()));

    expect(error).toMatchObject({ code: 'ROBOTS_DISALLOWED' });
    expect(target.calls.map((c) => c.path)).toEqual(['/robots.txt']);
    // RED-2 (2): the target's robots.txt is fetched with the same agent as the first request.
    expect(target.calls[0]?.headers['user-agent']).toBe(origin.calls[0]?.headers['user-agent']);
  });

  it('RED-3: a redirect target whose robots.txt is unreachable defers the fetch', async () => {
    const target = await startTestServer(routes({ '/doc': ok() }, { status: 503, body: 'down' }));
    const origin = await startTestServer(
      routes({ '/go': status(301, { location: target.url('/doc', 'ris-b.test') }) }),
    );
    cleanups.push(
      () => origin.close(),
      () => target.close(),
    );
    const k = kit();

    await expect(k.fetcher.fetch(origin.url('/go'), api())).rejects.toMatchObject({
      code: 'ROBOTS_UNREACHABLE',
    });
    expect(target.callsTo('/doc')).toHaveLength(0);
  });

  it('RATE-5 / RED-2 (3): the in-flight place moves to the target host, which gets its own slot', async () => {
    const target = await startTestServer(routes({ '/doc': ok() }));
    const origin = await startTestServer(
      routes({ '/go': status(302, { location: target.url('/doc', 'ris-b.test') }) }),
    );
    cleanups.push(
      () => origin.close(),
      () => target.close(),
    );
    const slots = recordingSlots(createHostSlots({ clock: new InstantClock() }));
    const k = kit({ slots });

    const result = await k.fetcher.fetch(origin.url('/go'), api());

    expect(result.finalUrl).toBe(target.url('/doc', 'ris-b.test'));
    expect(slots.calls.map((c) => `${c.op} ${'host' in c ? c.host : ''}`)).toEqual([
      'acquire ris-a.test', // robots.txt of ris-a
      'release ris-a.test',
      'acquire ris-a.test', // /go
      'acquire ris-b.test', // robots.txt of the target, before following (RED-2 order)
      'release ris-b.test',
      'moveTo ris-b.test', // the place moves first (RATE-5), then the target's slot
      'release ris-b.test',
    ]);
  });

  it('RED: relative Locations resolve against the current URL; a same-host hop takes a new slot', async () => {
    const server = await startTestServer(
      routes({ '/a/start': status(301, { location: '../b/end?x=1' }), '/b/end': ok('done') }),
    );
    cleanups.push(() => server.close());
    const slots = recordingSlots(createHostSlots({ clock: new InstantClock() }));
    const k = kit({ slots });

    const result = await k.fetcher.fetch(server.url('/a/start'), api());

    expect(result.body.toString()).toBe('done');
    expect(result.finalUrl).toBe(server.url('/b/end?x=1'));
    expect(result.redirects).toEqual([
      { url: server.url('/a/start'), status: 301, location: server.url('/b/end?x=1') },
    ]);
    expect(slots.calls.filter((c) => c.op === 'moveTo')).toHaveLength(1);
  });

  it.each(['ftp://ris-a.test/file.pdf', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/plain,hi'])(
    'RED: a Location with scheme %s is refused with REDIRECT_SCHEME',
    async (location) => {
      const server = await startTestServer(routes({ '/go': status(302, { location }) }));
      cleanups.push(() => server.close());
      const k = kit();

      await expect(k.fetcher.fetch(server.url('/go'), api())).rejects.toMatchObject({
        code: 'REDIRECT_SCHEME',
      });
    },
  );

  it('RED: a redirect without Location is REDIRECT_INVALID', async () => {
    const server = await startTestServer(routes({ '/go': status(302) }));
    cleanups.push(() => server.close());
    const k = kit();

    await expect(k.fetcher.fetch(server.url('/go'), api())).rejects.toMatchObject({
      code: 'REDIRECT_INVALID',
    });
  });

  it('RED-3: a target whose robots.txt forbids everything for us is not followed (fake council)', async () => {
    const a = await council();
    const b = await startFakeCouncil({ hostname: 'ris-b.test', robots: robotsScripts.disallowIngestor });
    cleanups.push(() => b.close());
    a.setFault('/oparl/v1/system', { kind: 'redirect', location: b.systemUrl });
    const k = kit();

    await expect(k.fetcher.fetch(a.systemUrl, api())).rejects.toMatchObject({ code: 'ROBOTS_DISALLOWED' });
    expect(b.requests.map((r) => r.path)).toEqual(['/robots.txt']);
  });
});
