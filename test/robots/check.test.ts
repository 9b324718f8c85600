import { describe, expect, it } from 'vitest';
import { nextCacheEntry, parseRobots, RobotsInputError, robotsCheck } from '../../shared/robots';

const OUR_UA = 'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; support@mandari.de)';
const NOW = new Date('2026-10-16T08:00:00Z');
const NOW_MS = NOW.getTime();
const ROBOTS =
  'User-agent: *\nDisallow: /\n\nUser-agent: mandari-ingestor\nDisallow: /private\nCrawl-delay: 5\n';

describe('robotsCheck (CLI: ingestor robots check)', () => {
  it.each([
    ['ROB-2: status 200, our group forbids', 200, 'https://ris.test/private/1', 'disallowed'],
    ['ROB-2: status 200, our group allows', 200, 'https://ris.test/oparl/v1', 'allowed'],
    ['ROB-6: status 404 → allowed', 404, 'https://ris.test/private/1', 'allowed'],
    ['ROB-6: status 403 → allowed', 403, 'https://ris.test/private/1', 'allowed'],
    ['ROB-7: status 503 without previous copy → deferred', 503, 'https://ris.test/oparl/v1', 'deferred'],
    ['ROB-7: status 429 without previous copy → deferred', 429, 'https://ris.test/oparl/v1', 'deferred'],
  ] as const)('%s', (_name, status, url, verdict) => {
    const result = robotsCheck({ robotsText: ROBOTS, status, agent: OUR_UA, url, now: NOW });

    expect(result.verdict).toBe(verdict);
    expect(result.status).toBe(status);
  });

  it('defaults to status 200 and reports group, rule, crawl delay and fetch action', () => {
    const result = robotsCheck({
      robotsText: ROBOTS,
      agent: OUR_UA,
      url: 'https://ris.test/private/1',
      now: NOW,
    });

    expect(result).toMatchObject({
      verdict: 'disallowed',
      group: 'mandari-ingestor',
      rule: 'Disallow: /private',
      crawlDelaySeconds: 5,
      productToken: 'mandari-ingestor',
      status: 200,
      fetchAction: 'parse',
      fetchRule: 'ROB-5',
      entryKind: 'rules',
      nextFetchAt: NOW_MS + 24 * 60 * 60 * 1000,
      robots: { groups: 2, truncated: false, ignoredLines: 0 },
    });
  });

  it('ROB-7: status 503 with no previous copy → deferred, retry 15 min later', () => {
    const result = robotsCheck({
      robotsText: null,
      status: 503,
      agent: OUR_UA,
      url: 'https://ris.test/',
      now: NOW,
    });

    expect(result).toMatchObject({
      verdict: 'deferred',
      retryAt: NOW_MS + 15 * 60 * 1000,
      fetchAction: 'unreachable',
      entryKind: 'unreachable',
    });
    expect(result).not.toHaveProperty('robots');
  });

  it('ROB-7: status 503 with a previous copy → that copy decides', () => {
    const previous = nextCacheEntry(
      null,
      { kind: 'response', status: 200, body: ROBOTS },
      NOW_MS - 3_600_000,
    );

    const result = robotsCheck({
      robotsText: null,
      status: 503,
      agent: OUR_UA,
      url: 'https://ris.test/private/1',
      previous,
      now: NOW,
    });

    expect(result).toMatchObject({
      verdict: 'disallowed',
      rule: 'Disallow: /private',
      entryKind: 'unreachable',
    });
  });

  it('ROB-3: an overridden agent is checked with its own token and mandari-ingestor', () => {
    const result = robotsCheck({
      robotsText: ROBOTS,
      agent: 'Mozilla/5.0 (compatible; StadtBot/2.0)',
      url: 'https://ris.test/oparl/v1',
      now: NOW,
    });

    expect(result).toMatchObject({ verdict: 'disallowed', group: '*', productToken: 'Mozilla' });
  });

  it('ROB-2a: accepts the file as bytes (BOM, CRLF)', () => {
    const bytes = new TextEncoder().encode('\ufeffUser-agent: mandari-ingestor\r\nDisallow: /x\r\n');

    const result = robotsCheck({ robotsText: bytes, agent: OUR_UA, url: 'https://ris.test/x', now: NOW });

    expect(result.verdict).toBe('disallowed');
  });

  it('ROB-9: passes an approved exception through', () => {
    const result = robotsCheck({
      robotsText: ROBOTS,
      agent: OUR_UA,
      url: 'https://ris.test/private/1',
      now: NOW,
      scope: 'files',
      exception: { scope: 'files', approvalNote: 'approved by the city' },
    });

    expect(result).toMatchObject({ verdict: 'allowed', exceptionUsed: true });
  });

  it.each([0, 99, 600, 200.5, Number.NaN])('rejects --status %s with ROBOTS_INVALID_INPUT', (status) => {
    expect(() =>
      robotsCheck({ robotsText: ROBOTS, status, agent: OUR_UA, url: 'https://ris.test/', now: NOW }),
    ).toThrow(RobotsInputError);
  });

  it('rejects a URL that is not absolute', () => {
    expect(() => robotsCheck({ robotsText: ROBOTS, agent: OUR_UA, url: 'ris.test/x', now: NOW })).toThrow(
      RobotsInputError,
    );
  });

  it('the result is plain JSON (what --json prints)', () => {
    const result = robotsCheck({
      robotsText: ROBOTS,
      agent: OUR_UA,
      url: 'https://ris.test/private/1',
      now: NOW,
    });

    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    expect(parseRobots(ROBOTS).groups).toHaveLength(result.robots?.groups ?? -1);
  });
});
