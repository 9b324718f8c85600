import { describe, expect, it } from 'vitest';
import { IngestorError } from '../../shared/errors';
import {
  allowsNothing,
  CRAWL_DELAY_CAP_SECONDS,
  isFresh,
  nextCacheEntry,
  nextRobotsFetchAt,
  parseRobots,
  productToken,
  ROBOTS_ALLOWS_NOTHING_RETRY_MS,
  ROBOTS_CACHE_TTL_MS,
  ROBOTS_FETCH_POLICY,
  ROBOTS_UNREACHABLE_RETRY_MS,
  type RobotsCacheEntry,
  RobotsDisallowedError,
  type RobotsFetchOutcome,
  type RobotsRulesEntry,
  RobotsUnreachableError,
  revalidationHeaders,
  robotsFetchPolicy,
  robotsTokens,
  robotsVerdict,
  verdictError,
} from '../../shared/robots';

const OUR_UA = 'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; support@mandari.de)';
const OVERRIDE_UA = 'Mozilla/5.0 (compatible; StadtBot/2.0)';
const T0 = Date.parse('2026-10-16T08:00:00Z');
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

function rulesEntry(text: string, fetchedAt = T0): RobotsRulesEntry {
  return { kind: 'rules', robots: parseRobots(text), fetchedAt, status: 200 };
}

function response(
  status: number,
  body?: string,
  extra: Partial<RobotsFetchOutcome> = {},
): RobotsFetchOutcome {
  return { kind: 'response', status, body, ...extra } as RobotsFetchOutcome;
}

describe('productToken and checked tokens (ROB-3)', () => {
  it.each([
    [OUR_UA, 'mandari-ingestor'],
    [OVERRIDE_UA, 'Mozilla'],
    ['  StadtBot  ', 'StadtBot'],
    ['curl/8.5.0', 'curl'],
    ['', ''],
  ])('ROB-3: product token of %j is %j', (userAgent, token) => {
    expect(productToken(userAgent)).toBe(token);
  });

  it('ROB-3: the agent token, mandari-ingestor, then the legacy tokens — without duplicates', () => {
    expect(robotsTokens(OVERRIDE_UA)).toEqual([
      { token: 'Mozilla', role: 'agent' },
      { token: 'mandari-ingestor', role: 'product' },
      { token: 'mandari-file-cache', role: 'legacy' },
      { token: 'mandari', role: 'legacy' },
    ]);
    expect(robotsTokens(OUR_UA).map((t) => t.token)).toEqual([
      'mandari-ingestor',
      'mandari-file-cache',
      'mandari',
    ]);
  });
});

describe('robotsVerdict: tokens (ROB-1, ROB-3)', () => {
  const cases: {
    name: string;
    robots: string;
    userAgent: string;
    path: string;
    verdict: 'allowed' | 'disallowed';
    group: string | null;
    rule: string | null;
  }[] = [
    {
      name: 'ROB-3: a mandari-ingestor group applies to an overridden agent too',
      robots: 'User-agent: mandari-ingestor\nDisallow: /private\n',
      userAgent: OVERRIDE_UA,
      path: '/private/x',
      verdict: 'disallowed',
      group: 'mandari-ingestor',
      rule: 'Disallow: /private',
    },
    {
      name: 'ROB-3: the group of the overridden agent’s own token applies',
      robots: 'User-agent: Mozilla\nDisallow: /m\n',
      userAgent: OVERRIDE_UA,
      path: '/m',
      verdict: 'disallowed',
      group: 'mozilla',
      rule: 'Disallow: /m',
    },
    {
      name: 'ROB-3: the override token falls back to *; both tokens must allow',
      robots: 'User-agent: *\nDisallow: /\n\nUser-agent: mandari-ingestor\nAllow: /\n',
      userAgent: OVERRIDE_UA,
      path: '/oparl/v1',
      verdict: 'disallowed',
      group: '*',
      rule: 'Disallow: /',
    },
    {
      name: 'ROB-1: with our own agent our group replaces *',
      robots: 'User-agent: *\nDisallow: /\n\nUser-agent: mandari-ingestor\nAllow: /\n',
      userAgent: OUR_UA,
      path: '/oparl/v1',
      verdict: 'allowed',
      group: 'mandari-ingestor',
      rule: 'Allow: /',
    },
    {
      name: 'ROB-2a: User-agent: mandari-ingestor/1.2 selects our group',
      robots: 'User-agent: mandari-ingestor/1.2\nDisallow: /files/\n',
      userAgent: OUR_UA,
      path: '/files/1.pdf',
      verdict: 'disallowed',
      group: 'mandari-ingestor',
      rule: 'Disallow: /files/',
    },
    {
      name: 'ROB-3: a group for the legacy token mandari forbids',
      robots: 'User-agent: mandari\nDisallow: /old\n',
      userAgent: OUR_UA,
      path: '/old/1',
      verdict: 'disallowed',
      group: 'mandari',
      rule: 'Disallow: /old',
    },
    {
      name: 'ROB-3: a group for the legacy token mandari-file-cache forbids',
      robots: 'User-agent: mandari-file-cache\nDisallow: /*.pdf$\n',
      userAgent: OUR_UA,
      path: '/doc/a.pdf',
      verdict: 'disallowed',
      group: 'mandari-file-cache',
      rule: 'Disallow: /*.pdf$',
    },
    {
      name: 'ROB-3: a legacy group cannot allow what * forbids',
      robots: 'User-agent: *\nDisallow: /\n\nUser-agent: mandari-file-cache\nUser-agent: mandari\nAllow: /\n',
      userAgent: OUR_UA,
      path: '/x',
      verdict: 'disallowed',
      group: '*',
      rule: 'Disallow: /',
    },
    {
      name: 'ROB-3: legacy tokens never fall back to *',
      robots: 'User-agent: *\nDisallow: /star-only\n\nUser-agent: mandari-ingestor\nAllow: /\n',
      userAgent: OUR_UA,
      path: '/star-only',
      verdict: 'allowed',
      group: 'mandari-ingestor',
      rule: 'Allow: /',
    },
    {
      name: 'ROB-3: a mandari-ingestor group is not a legacy mandari group',
      robots: 'User-agent: mandari-ingestor\nAllow: /\n\nUser-agent: Mandari\nDisallow: /legacy\n',
      userAgent: OUR_UA,
      path: '/open',
      verdict: 'allowed',
      group: 'mandari-ingestor',
      rule: 'Allow: /',
    },
    {
      name: 'ROB-1: no group and no * group: allowed, no group',
      robots: 'User-agent: googlebot\nDisallow: /\n',
      userAgent: OUR_UA,
      path: '/x',
      verdict: 'allowed',
      group: null,
      rule: null,
    },
  ];

  it.each(cases)('$name', ({ robots, userAgent, path, verdict, group, rule }) => {
    const result = robotsVerdict({
      entry: rulesEntry(robots),
      userAgent,
      url: `https://ris.test${path}`,
      now: T0,
    });

    expect(result).toMatchObject({ verdict, group, rule, exceptionUsed: false });
  });

  it('ROB-3: the verdict lists every checked token; a legacy token without group is not listed', () => {
    const result = robotsVerdict({
      entry: rulesEntry('User-agent: *\nDisallow: /a\n\nUser-agent: mandari\nDisallow: /b\n'),
      userAgent: OVERRIDE_UA,
      url: 'https://ris.test/b',
      now: T0,
    });

    expect(result.checks.map((c) => [c.token, c.group, c.allowed])).toEqual([
      ['Mozilla', '*', true],
      ['mandari-ingestor', '*', true],
      ['mandari', 'mandari', false],
    ]);
    expect(result.verdict).toBe('disallowed');
  });
});

describe('robotsVerdict: Crawl-delay (ROB-10)', () => {
  it.each([
    ['our group', 'User-agent: mandari-ingestor\nCrawl-delay: 5\n', OUR_UA, 5],
    [
      'largest of the checked groups (* for the override, ours for mandari-ingestor)',
      'User-agent: *\nCrawl-delay: 4\n\nUser-agent: mandari-ingestor\nCrawl-delay: 10\n',
      OVERRIDE_UA,
      10,
    ],
    ['capped at 60 s', 'User-agent: *\nCrawl-delay: 3600\n', OUR_UA, CRAWL_DELAY_CAP_SECONDS],
    ['a legacy group can only slow us down', 'User-agent: mandari\nCrawl-delay: 20\n', OUR_UA, 20],
    [
      '* does not apply when our group exists',
      'User-agent: *\nCrawl-delay: 30\nDisallow: /x\n\nUser-agent: mandari-ingestor\nAllow: /\n',
      OUR_UA,
      undefined,
    ],
    [
      'Crawl-delay does not end a group: * and ours share it',
      'User-agent: *\nCrawl-delay: 30\nUser-agent: mandari-ingestor\nAllow: /\n',
      OUR_UA,
      30,
    ],
    ['none', 'User-agent: *\nDisallow: /x\n', OUR_UA, undefined],
  ])('ROB-10: %s', (_name, robots, userAgent, seconds) => {
    const result = robotsVerdict({ entry: rulesEntry(robots), userAgent, url: 'https://ris.test/', now: T0 });

    expect(result.crawlDelaySeconds).toBe(seconds);
  });
});

describe('fetch-outcome policy (ROB-5, ROB-6, ROB-7)', () => {
  it.each([
    [200, 'parse'],
    [204, 'parse'],
    [304, 'revalidated'],
    [400, 'absent'],
    [401, 'absent'],
    [403, 'absent'],
    [404, 'absent'],
    [406, 'absent'],
    [410, 'absent'],
    [451, 'absent'],
    [408, 'unreachable'],
    [429, 'unreachable'],
    [500, 'unreachable'],
    [502, 'unreachable'],
    [503, 'unreachable'],
    [504, 'unreachable'],
    [301, 'unreachable'],
    [101, 'unreachable'],
  ])('HTTP %i → %s', (status, action) => {
    expect(robotsFetchPolicy(response(status)).action).toBe(action);
  });

  it.each([
    [{ kind: 'network-error', message: 'ECONNRESET' }, 'unreachable'],
    [{ kind: 'too-many-redirects', redirects: 6 }, 'unreachable'],
  ] as const)('ROB-7: %j → %s', (outcome, action) => {
    expect(robotsFetchPolicy(outcome).action).toBe(action);
  });

  it('the policy table is data: every row names a rule and ends with a catch-all that is never "absent"', () => {
    expect(ROBOTS_FETCH_POLICY.every((row) => /^(ROB|B)-\d+$/.test(row.rule) && row.note.length > 0)).toBe(
      true,
    );
    expect(ROBOTS_FETCH_POLICY.at(-1)).toMatchObject({ outcome: 'other', action: 'unreachable' });
  });
});

describe('cache entries (ROB-5, ROB-7)', () => {
  it('ROB-5: a fetched copy is fresh for exactly 24 h', () => {
    const entry = nextCacheEntry(null, response(200, 'User-agent: *\nDisallow: /x\n'), new Date(T0));

    expect(entry.kind).toBe('rules');
    expect(isFresh(entry, T0 + ROBOTS_CACHE_TTL_MS - 1)).toBe(true);
    expect(isFresh(entry, new Date(T0 + ROBOTS_CACHE_TTL_MS))).toBe(false);
    expect(nextRobotsFetchAt(entry)).toBe(T0 + 24 * HOUR_MS);
  });

  it('ROB-6: absence (404) is cached for 24 h too', () => {
    const entry = nextCacheEntry(null, response(404), T0);

    expect(entry).toEqual({ kind: 'absent', fetchedAt: T0, status: 404 });
    expect(isFresh(entry, T0 + 23 * HOUR_MS)).toBe(true);
    expect(isFresh(entry, T0 + 24 * HOUR_MS)).toBe(false);
  });

  it('ROB-7: unreachable without a copy: retried no earlier than 15 min later', () => {
    const entry = nextCacheEntry(undefined, response(503), T0);

    expect(entry).toEqual({
      kind: 'unreachable',
      since: T0,
      retryAt: T0 + ROBOTS_UNREACHABLE_RETRY_MS,
      attempts: 1,
      cause: 'HTTP 503',
    });
    expect(ROBOTS_UNREACHABLE_RETRY_MS).toBe(15 * MINUTE_MS);
    expect(isFresh(entry, T0 + 15 * MINUTE_MS - 1)).toBe(true);
    expect(isFresh(entry, T0 + 15 * MINUTE_MS)).toBe(false);
  });

  it('ROB-7: 503 with a last good copy keeps that copy, also over repeated failures', () => {
    const good = rulesEntry('User-agent: *\nDisallow: /private\n', T0 - 30 * HOUR_MS);

    const first = nextCacheEntry(good, response(503), T0);
    const second = nextCacheEntry(
      first,
      { kind: 'network-error', message: 'ETIMEDOUT' },
      T0 + 20 * MINUTE_MS,
    );

    expect(first).toMatchObject({ kind: 'unreachable', since: T0, attempts: 1, lastGood: good });
    expect(second).toMatchObject({
      kind: 'unreachable',
      since: T0,
      attempts: 2,
      cause: 'network error: ETIMEDOUT',
      retryAt: T0 + 35 * MINUTE_MS,
      lastGood: good,
    });
  });

  it('ROB-7: a successful fetch after failures replaces the unreachable state', () => {
    const failed = nextCacheEntry(rulesEntry('User-agent: *\nDisallow: /\n'), response(500), T0);

    const next = nextCacheEntry(failed, response(200, 'User-agent: *\nAllow: /\n'), T0 + HOUR_MS);

    expect(next).toMatchObject({ kind: 'rules', fetchedAt: T0 + HOUR_MS });
  });

  it('ROB-7: an earlier 4xx is no copy of rules — a later 503 defers', () => {
    const absent = nextCacheEntry(null, response(404), T0);

    const failed = nextCacheEntry(absent, response(503), T0 + 25 * HOUR_MS);

    expect(failed).not.toHaveProperty('lastGood');
  });

  it('RATE-8: Retry-After on the robots.txt answer postpones the retry (never shortens, capped at 24 h)', () => {
    const long = nextCacheEntry(null, response(429, undefined, { retryAfterMs: 2 * HOUR_MS }), T0);
    const short = nextCacheEntry(null, response(429, undefined, { retryAfterMs: 5_000 }), T0);
    const huge = nextCacheEntry(null, response(503, undefined, { retryAfterMs: 100 * HOUR_MS }), T0);

    expect(long).toMatchObject({ retryAt: T0 + 2 * HOUR_MS });
    expect(short).toMatchObject({ retryAt: T0 + 15 * MINUTE_MS });
    expect(huge).toMatchObject({ retryAt: T0 + 24 * HOUR_MS });
  });

  it('B-1: 304 refreshes the copy we hold; validators are offered for the next request', () => {
    const good: RobotsRulesEntry = { ...rulesEntry('User-agent: *\nDisallow: /x\n'), etag: '"v1"' };
    const failed = nextCacheEntry(good, response(502), T0 + 25 * HOUR_MS);

    const refreshed = nextCacheEntry(
      failed,
      response(304, undefined, { lastModified: 'Fri, 16 Oct 2026' }),
      T0 + 26 * HOUR_MS,
    );

    expect(revalidationHeaders(failed)).toEqual({ 'If-None-Match': '"v1"' });
    expect(refreshed).toMatchObject({ kind: 'rules', fetchedAt: T0 + 26 * HOUR_MS, etag: '"v1"' });
    expect(refreshed).toHaveProperty('lastModified', 'Fri, 16 Oct 2026');
    expect(refreshed.kind === 'rules' && refreshed.robots).toEqual(good.robots);
  });

  it('B-1: 304 without a copy to revalidate counts as unreachable', () => {
    expect(nextCacheEntry(null, response(304), T0)).toMatchObject({ kind: 'unreachable' });
    expect(revalidationHeaders(null)).toEqual({});
  });

  it('ROB-5: cache entries are plain data (JSON round trip)', () => {
    const entry = nextCacheEntry(
      rulesEntry('User-agent: *\nDisallow: /café\nCrawl-delay: 2\n'),
      response(503),
      T0,
    );

    expect(JSON.parse(JSON.stringify(entry))).toEqual(entry);
  });
});

describe('robotsVerdict: cache state (ROB-4 … ROB-7)', () => {
  const url = 'https://ris.test/private/doc';
  const good = rulesEntry('User-agent: *\nDisallow: /private\n');

  it.each([401, 403, 404, 406, 410])('ROB-6: robots.txt HTTP %i → everything allowed', (status) => {
    const entry = nextCacheEntry(null, response(status), T0);

    const result = robotsVerdict({ entry, userAgent: OUR_UA, url, now: T0 });

    expect(result).toMatchObject({ verdict: 'allowed', group: null, rule: null });
    expect(result.reason).toContain('ROB-6');
  });

  it.each([
    ['HTTP 500', response(500)],
    ['HTTP 503', response(503)],
    ['HTTP 408', response(408)],
    ['HTTP 429', response(429)],
    ['a network error', { kind: 'network-error' } as RobotsFetchOutcome],
    ['more than five redirects', { kind: 'too-many-redirects', redirects: 6 } as RobotsFetchOutcome],
  ])('ROB-7: %s without a previous copy → deferred ≥ 15 min, never allowed', (_name, outcome) => {
    const entry = nextCacheEntry(null, outcome, T0);

    const result = robotsVerdict({
      entry,
      userAgent: OUR_UA,
      url: 'https://ris.test/open',
      now: T0 + MINUTE_MS,
    });

    expect(result.verdict).toBe('deferred');
    expect(result.retryAt).toBeGreaterThanOrEqual(T0 + 15 * MINUTE_MS);
    expect(result.reason).toContain('ROB-7');
  });

  it('ROB-7: 503 with a last good copy keeps that copy in force', () => {
    const entry = nextCacheEntry(good, response(503), T0 + 25 * HOUR_MS);

    const blocked = robotsVerdict({ entry, userAgent: OUR_UA, url, now: T0 + 25 * HOUR_MS });
    const open = robotsVerdict({
      entry,
      userAgent: OUR_UA,
      url: 'https://ris.test/open',
      now: T0 + 25 * HOUR_MS,
    });

    expect(blocked).toMatchObject({ verdict: 'disallowed', group: '*', rule: 'Disallow: /private' });
    expect(blocked.reason).toMatch(/ROB-7.*stays in force/);
    expect(open.verdict).toBe('allowed');
  });

  it('ROB-5: no cache entry yet → deferred until robots.txt is loaded', () => {
    const result = robotsVerdict({ entry: null, userAgent: OUR_UA, url, now: T0 });

    expect(result).toMatchObject({ verdict: 'deferred', retryAt: T0 });
  });

  it('ROB-5 / OPT-1: a copy older than 24 h never decides (must be refreshed first)', () => {
    const fresh = robotsVerdict({ entry: good, userAgent: OUR_UA, url, now: T0 + 24 * HOUR_MS - 1 });
    const stale = robotsVerdict({ entry: good, userAgent: OUR_UA, url, now: T0 + 24 * HOUR_MS });

    expect(fresh.verdict).toBe('disallowed');
    expect(stale).toMatchObject({ verdict: 'deferred', retryAt: T0 + 24 * HOUR_MS });
  });

  it('ROB-4: /robots.txt itself is allowed, whatever the state', () => {
    const unreachable = nextCacheEntry(null, response(503), T0);
    const forbidding = rulesEntry('User-agent: *\nDisallow: /\n');

    for (const entry of [null, unreachable, forbidding] as (RobotsCacheEntry | null)[]) {
      expect(
        robotsVerdict({ entry, userAgent: OUR_UA, url: 'https://ris.test/robots.txt', now: T0 }).verdict,
      ).toBe('allowed');
    }
  });

  it('the verdict rejects an invalid URL with ROBOTS_INVALID_INPUT', () => {
    expect(() => robotsVerdict({ entry: good, userAgent: OUR_UA, url: 'nonsense', now: T0 })).toThrowError(
      /not an absolute http\(s\) URL/,
    );
  });
});

describe('robotsVerdict: exceptions (ROB-9)', () => {
  const entry = rulesEntry('User-agent: mandari-ingestor\nDisallow: /\n');
  const url = 'https://ris.test/oparl/v1/system';
  const approved = { scope: 'api', approvalNote: 'Freigabe Stadt X, Ticket 123, 2026-10-01' } as const;

  it('ROB-9: an approved exception for the scope allows and says so', () => {
    const result = robotsVerdict({
      entry,
      userAgent: OUR_UA,
      url,
      now: T0,
      scope: 'api',
      exception: approved,
    });

    expect(result).toMatchObject({ verdict: 'allowed', exceptionUsed: true, rule: 'Disallow: /' });
    expect(result.reason).toContain('Ticket 123');
  });

  it.each([
    ['an empty approval note', { scope: 'api', approvalNote: '' }, 'api'],
    ['a whitespace-only approval note', { scope: 'both', approvalNote: '  \t ' }, 'api'],
  ] as const)('ROB-9: %s does not exempt; robots.txt applies', (_name, exception, scope) => {
    const result = robotsVerdict({ entry, userAgent: OUR_UA, url, now: T0, scope, exception });

    expect(result).toMatchObject({ verdict: 'disallowed', exceptionUsed: false });
    expect(result.reason).toContain('without approval note ignored');
  });

  it.each([
    ['api', 'api', true],
    ['api', 'files', false],
    ['files', 'files', true],
    ['files', 'api', false],
    ['both', 'api', true],
    ['both', 'files', true],
    ['both', 'html', false],
  ] as const)('ROB-9: exception scope %s for a %s request → exempt %j', (scope, requestScope, exempt) => {
    const result = robotsVerdict({
      entry,
      userAgent: OUR_UA,
      url,
      now: T0,
      scope: requestScope,
      exception: { scope, approvalNote: 'approved' },
    });

    expect(result.exceptionUsed).toBe(exempt);
    expect(result.verdict).toBe(exempt ? 'allowed' : 'disallowed');
  });

  it('ROB-9: without a request scope no exception applies', () => {
    expect(robotsVerdict({ entry, userAgent: OUR_UA, url, now: T0, exception: approved }).verdict).toBe(
      'disallowed',
    );
  });

  it('ROB-9: an exception is not "used" when robots.txt allows anyway', () => {
    const open = rulesEntry('User-agent: *\nAllow: /\n');

    const result = robotsVerdict({
      entry: open,
      userAgent: OUR_UA,
      url,
      now: T0,
      scope: 'api',
      exception: approved,
    });

    expect(result).toMatchObject({ verdict: 'allowed', exceptionUsed: false });
  });

  it('ROB-9: an approved exception also covers an unreachable robots.txt (robots.txt does not apply)', () => {
    const unreachable = nextCacheEntry(null, response(503), T0);

    const result = robotsVerdict({
      entry: unreachable,
      userAgent: OUR_UA,
      url,
      now: T0,
      scope: 'api',
      exception: approved,
    });

    expect(result).toMatchObject({ verdict: 'allowed', exceptionUsed: true });
    expect(result).not.toHaveProperty('retryAt');
  });
});

describe('allowsNothing (ROB-8)', () => {
  const samples = [
    'https://ris.test/oparl/v1/system',
    'https://ris.test/oparl/v1/bodies',
    'https://ris.test/files/1.pdf',
  ];

  it.each([
    ['Disallow: / for our group', 'User-agent: mandari-ingestor\nDisallow: /\n', OUR_UA, true],
    [
      'Disallow: / for * only, our group allows',
      'User-agent: *\nDisallow: /\nUser-agent: mandari-ingestor\nAllow: /oparl/\n',
      OUR_UA,
      false,
    ],
    ['one sample allowed', 'User-agent: *\nDisallow: /files/\nDisallow: /oparl/v1/system\n', OUR_UA, false],
    [
      'override agent blocked by *',
      'User-agent: *\nDisallow: /\nUser-agent: mandari-ingestor\nAllow: /\n',
      OVERRIDE_UA,
      true,
    ],
    ['legacy group forbids everything', 'User-agent: mandari\nDisallow: /\n', OUR_UA, true],
    ['no rules', '', OUR_UA, false],
  ])('ROB-8: %s → %j', (_name, text, userAgent, expected) => {
    expect(allowsNothing(parseRobots(text), userAgent, samples)).toBe(expected);
  });

  it('ROB-8: without samples the site root is probed; /robots.txt samples do not count', () => {
    const closed = parseRobots('User-agent: *\nDisallow: /\n');

    expect(allowsNothing(closed, OUR_UA)).toBe(true);
    expect(allowsNothing(closed, OUR_UA, ['https://ris.test/robots.txt'])).toBe(false);
    expect(ROBOTS_ALLOWS_NOTHING_RETRY_MS).toBe(24 * HOUR_MS);
  });
});

describe('verdictError (typed errors)', () => {
  it('ROB-8: a disallowed verdict becomes ROBOTS_DISALLOWED (not retryable)', () => {
    const verdict = robotsVerdict({
      entry: rulesEntry('User-agent: *\nDisallow: /x\n'),
      userAgent: OUR_UA,
      url: 'https://ris.test/x',
      now: T0,
    });

    const error = verdictError(verdict, 'https://ris.test/x');

    expect(error).toBeInstanceOf(RobotsDisallowedError);
    expect(error).toBeInstanceOf(IngestorError);
    expect(error).toMatchObject({
      code: 'ROBOTS_DISALLOWED',
      retryable: false,
      rule: 'Disallow: /x',
      group: '*',
    });
  });

  it('ROB-7: a deferred verdict becomes ROBOTS_UNREACHABLE (retryable at retryAt)', () => {
    const verdict = robotsVerdict({
      entry: nextCacheEntry(null, response(503), T0),
      userAgent: OUR_UA,
      url: 'https://ris.test/x',
      now: T0,
    });

    const error = verdictError(verdict, new URL('https://ris.test/x'));

    expect(error).toBeInstanceOf(RobotsUnreachableError);
    expect(error).toMatchObject({
      code: 'ROBOTS_UNREACHABLE',
      retryable: true,
      retryAt: T0 + 15 * MINUTE_MS,
    });
  });

  it('an allowed verdict has no error', () => {
    const verdict = robotsVerdict({
      entry: rulesEntry(''),
      userAgent: OUR_UA,
      url: 'https://ris.test/x',
      now: T0,
    });

    expect(verdictError(verdict, 'https://ris.test/x')).toBeNull();
  });
});
