import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../shared/config/env';
import {
  createPoliteFetcherFromEnv,
  defaultUserAgent,
  PACKAGE_VERSION,
  userAgentFromEnv,
} from '../../shared/fetch';
import { createTestResolver } from '../../shared/net';
import { createHostSlots } from '../../shared/slots';
import {
  api,
  closeAfterEach,
  InstantClock,
  makeKit,
  ok,
  routes,
  SOURCE,
  startTestServer,
  type TestServer,
} from '../support/fetch-kit';

const { cleanups } = closeAfterEach();

async function setup(
  table: Parameters<typeof routes>[0],
  robots?: Parameters<typeof routes>[1],
  userAgent?: string,
) {
  const server: TestServer = await startTestServer(routes(table, robots));
  const kit = makeKit(userAgent ? { userAgent } : {});
  cleanups.push(
    () => server.close(),
    () => kit.close(),
  );
  return { server, kit };
}

describe('identification (ID)', () => {
  it('ID-1: the default agent names product, package version, info URL and contact', () => {
    expect(PACKAGE_VERSION).toBe('0.1.0');
    expect(defaultUserAgent()).toBe(
      'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; support@mandari.de)',
    );
  });

  it('ID-1: INGESTOR_USER_AGENT wins over the legacy SCRAPER_USER_AGENT, which wins over the default', () => {
    expect(userAgentFromEnv(parseEnv({ INGESTOR_USER_AGENT: 'a/1', SCRAPER_USER_AGENT: 'b/1' }))).toBe('a/1');
    expect(userAgentFromEnv(parseEnv({ SCRAPER_USER_AGENT: 'b/1' }))).toBe('b/1');
    expect(userAgentFromEnv(parseEnv({}))).toBe(defaultUserAgent());
  });

  it('ID-1/ID-2: API requests carry our agent and Accept: application/json; robots.txt Accept: text/plain', async () => {
    const { server, kit } = await setup({ '/oparl/system': ok() });

    await kit.fetcher.fetch(server.url('/oparl/system'), api());

    const [robots, system] = server.calls;
    expect(robots?.path).toBe('/robots.txt');
    expect(robots?.headers['user-agent']).toBe(defaultUserAgent());
    expect(robots?.headers.accept).toBe('text/plain');
    expect(system?.path).toBe('/oparl/system');
    expect(system?.headers['user-agent']).toBe(defaultUserAgent());
    expect(system?.headers.accept).toBe('application/json');
  });

  it('ID-1: an operator agent (INGESTOR_USER_AGENT) replaces the default on every request', async () => {
    const operator = 'mandari-ingestor/0.1.0 (+https://ris.example.de/abruf/; it@example.de)';
    const { server, kit } = await setup({ '/x': ok() }, undefined, operator);

    await kit.fetcher.fetch(server.url('/x'), api());

    expect(server.calls.map((c) => c.headers['user-agent'])).toEqual([operator, operator]);
  });

  it('ID-3: a source override is sent on API and robots.txt alike, and its robots group is evaluated', async () => {
    const robots = 'User-agent: StadtBot\nDisallow: /private\n\nUser-agent: *\nAllow: /\n';
    const { server, kit } = await setup({ '/open': ok(), '/private': ok() }, robots);
    const source = {
      ...SOURCE,
      userAgent: 'StadtBot/2.0 (+https://mandari.de/ingestor/; support@mandari.de)',
    };

    await kit.fetcher.fetch(server.url('/open'), api({ source }));
    const refused = kit.fetcher.fetch(server.url('/private'), api({ source }));

    await expect(refused).rejects.toMatchObject({ code: 'ROBOTS_DISALLOWED' });
    expect(server.calls.map((c) => [c.path, c.headers['user-agent']])).toEqual([
      ['/robots.txt', source.userAgent],
      ['/open', source.userAgent],
    ]);
  });

  it('ID-3 / ROB-3: with an override, a mandari-ingestor group still applies', async () => {
    const robots = 'User-agent: mandari-ingestor\nDisallow: /\n';
    const { server, kit } = await setup({ '/x': ok() }, robots);
    const source = { ...SOURCE, userAgent: 'StadtBot/2.0' };

    await expect(kit.fetcher.fetch(server.url('/x'), api({ source }))).rejects.toMatchObject({
      code: 'ROBOTS_DISALLOWED',
    });
    expect(server.callsTo('/x')).toHaveLength(0);
  });

  it('B-3: callers cannot replace the User-Agent through extra headers', async () => {
    const { server, kit } = await setup({ '/x': ok() });

    await expect(
      kit.fetcher.fetch(server.url('/x'), api({ headers: { 'User-Agent': 'Mozilla/5.0' } })),
    ).rejects.toMatchObject({ code: 'FETCH_INVALID_INPUT' });
    expect(server.calls).toHaveLength(0);
  });
});

describe('wiring from the environment', () => {
  it('ID-1 + local mode: the env agent is sent; loopback is reachable only with INGESTOR_ALLOW_LOOPBACK', async () => {
    const server = await startTestServer(routes({ '/x': ok() }));
    cleanups.push(() => server.close());
    const slots = createHostSlots({ clock: new InstantClock() });
    const strict = createPoliteFetcherFromEnv(parseEnv({ INGESTOR_USER_AGENT: 'op-agent/1' }), {
      slots,
      resolver: createTestResolver(),
    });
    const local = createPoliteFetcherFromEnv(
      parseEnv({ INGESTOR_USER_AGENT: 'op-agent/1', INGESTOR_ALLOW_LOOPBACK: 'true' }),
      { slots, resolver: createTestResolver() },
    );
    cleanups.push(
      () => strict.close(),
      () => local.close(),
    );

    await expect(strict.fetch(`http://127.0.0.1:${server.port}/x`, api())).rejects.toMatchObject({
      code: 'ADDRESS_NOT_PUBLIC',
    });
    await local.fetch(server.url('/x'), api());

    expect(server.calls.map((c) => c.headers['user-agent'])).toEqual(['op-agent/1', 'op-agent/1']);
  });
});
