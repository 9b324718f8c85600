import { describe, expect, it } from 'vitest';
import { isIngestorError } from '../../shared/errors';
import {
  decidingRule,
  indexHtmlDirectoryPattern,
  isAllowed,
  matchRobots,
  matchTarget,
  normalizePattern,
  parseRobots,
  patternMatches,
  RobotsInputError,
  selectGroups,
} from '../../shared/robots';

describe('patternMatches (RFC 9309 §2.2.3)', () => {
  it.each([
    ['/fish', '/fish', true],
    ['/fish', '/fish.html?id=1', true],
    ['/fish', '/Fish.asp', false],
    ['/fish', '/catfish', false],
    ['/fish*', '/fish/salmon', true],
    ['/*.php', '/folder/filename.php?x', true],
    ['/*.php', '/windows.PHP', false],
    ['/*.php$', '/filename.php', true],
    ['/*.php$', '/filename.php?x', false],
    ['/*.php$', '/filename.php5', false],
    ['/fish*.php', '/fishheads/catfish.php?parameters', true],
    ['/$', '/', true],
    ['/$', '/page', false],
    ['/a*b*c$', '/abc', true],
    ['/a*b*c$', '/aXbYc', true],
    ['/a*b*c$', '/aXbYcZ', false],
    ['/a*bc$', '/abc', true],
    ['/ab*bc$', '/abc', false],
    ['*', '/anything', true],
    ['/***', '/', true],
    ['/x*$', '/x', true],
    ['page', '/page', false],
  ])('pattern %j vs %j → %j', (pattern, target, expected) => {
    expect(patternMatches(target, pattern)).toBe(expected);
  });

  it('ROB-2: many * against a long path stays fast (no backtracking)', () => {
    const target = `/${'a'.repeat(200_000)}`;
    const patterns = [`/${'a*'.repeat(5_000)}b`, `/${'*a'.repeat(5_000)}$`, `/${'*'.repeat(10_000)}ab$`];
    const started = performance.now();

    const results = patterns.map((pattern) => patternMatches(target, pattern));

    expect(results).toEqual([false, true, false]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('ROB-2: a file of star-heavy rules against a long URL stays fast', () => {
    const rules = Array.from({ length: 2_000 }, (_, i) => `Disallow: /*a*a*a*a*a*a*a*a*${i}x$`).join('\n');
    const robots = parseRobots(`User-agent: *\n${rules}\n`);
    const url = `https://ris.test/${'a'.repeat(20_000)}`;
    const started = performance.now();

    const allowed = isAllowed(robots, 'mandari-ingestor', url);

    expect(allowed).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_500);
  });
});

describe('selectGroups (ROB-1)', () => {
  const robots = parseRobots(
    [
      'User-agent: *',
      'Disallow: /star',
      'User-agent: Mandari-Ingestor/1.2',
      'Disallow: /one',
      'User-agent: other',
      'Disallow: /other',
      'User-agent: MANDARI-INGESTOR',
      'Disallow: /two',
      'User-agent: *',
      'Disallow: /star2',
    ].join('\n'),
  );

  it('ROB-1: all groups naming our token apply, merged, case-insensitively, by leading token', () => {
    const selection = selectGroups(robots, 'mandari-ingestor');

    expect(selection.token).toBe('mandari-ingestor');
    expect(selection.groups.flatMap((g) => g.rules.map((r) => r.pattern))).toEqual(['/one', '/two']);
  });

  it('ROB-1: our group replaces *, not in addition', () => {
    expect(isAllowed(robots, 'mandari-ingestor', 'https://ris.test/star')).toBe(true);
    expect(isAllowed(robots, 'mandari-ingestor', 'https://ris.test/two/x')).toBe(false);
  });

  it('ROB-1: without a group for the token, all * groups apply (merged)', () => {
    const selection = selectGroups(robots, 'SomeBot');

    expect(selection.token).toBe('*');
    expect(selection.groups.flatMap((g) => g.rules.map((r) => r.pattern))).toEqual(['/star', '/star2']);
  });

  it('ROB-1: without our group and without *, everything is allowed', () => {
    const onlyOthers = parseRobots('User-agent: googlebot\nDisallow: /\n');

    expect(selectGroups(onlyOthers, 'mandari-ingestor')).toEqual({ token: null, groups: [] });
    expect(matchRobots(onlyOthers, 'mandari-ingestor', 'https://ris.test/x')).toMatchObject({
      allowed: true,
      group: null,
      rule: null,
    });
  });

  it('ROB-3: with fallbackToGlobal off (legacy tokens) * does not apply', () => {
    expect(selectGroups(robots, 'mandari', { fallbackToGlobal: false })).toEqual({ token: null, groups: [] });
  });

  it('ROB-1: the caller token is compared whole ("Foo Bar" is not "foo")', () => {
    const spaced = parseRobots('User-agent: *\nDisallow: /\nUser-agent: Foo Bar\nAllow: /x/\nDisallow: /\n');

    expect(isAllowed(spaced, 'Foo', 'https://ris.test/x/y')).toBe(true);
    expect(isAllowed(spaced, 'Foo Bar', 'https://ris.test/x/y')).toBe(false);
  });
});

describe('rule matching (ROB-2)', () => {
  it.each([
    ['longest match wins (Disallow longer)', ['Disallow: /x/page.html', 'Allow: /x/'], '/x/page.html', false],
    ['longest match wins (Allow longer)', ['Allow: /x/page.html', 'Disallow: /x/'], '/x/page.html', true],
    ['equal length: Allow wins', ['Disallow: /folder', 'Allow: /folder'], '/folder/page', true],
    ['length counts * and $', ['Allow: /page', 'Disallow: /*.htm'], '/page.htm', false],
    ['path AND query are matched', ['Disallow: /search?q='], '/search?q=rat', false],
    ['query differs', ['Disallow: /search?q='], '/search?page=2', true],
    ['case-sensitive path', ['Disallow: /Private'], '/private', true],
    ['case-sensitive .pdf (seed example)', ['Disallow: /*.pdf$'], '/doc.PDF', true],
    ['.pdf anchored', ['Disallow: /*.pdf$'], '/getfile.asp?id=1&f=a.pdf', false],
    ['empty Disallow matches nothing', ['Disallow:'], '/anything', true],
    ['empty Allow does not beat Disallow', ['Allow:', 'Disallow: /'], '/x', false],
    ['$ in the middle is a literal', ['Disallow: /a$b'], '/a$b', false],
    ['fragment is not matched', ['Disallow: /a$'], '/a#frag', false],
  ])('ROB-2: %s', (_name, rules, path, expected) => {
    const robots = parseRobots(`User-agent: *\n${rules.join('\n')}\n`);

    expect(isAllowed(robots, 'mandari-ingestor', `https://ris.test${path}`)).toBe(expected);
  });

  it('ROB-2: reports the deciding rule, its group and line', () => {
    const robots = parseRobots('User-agent: mandari-ingestor\nAllow: /oparl/\nDisallow: /oparl/file\n');

    const result = matchRobots(robots, 'mandari-ingestor', 'https://ris.test/oparl/file/7');

    expect(result).toMatchObject({
      allowed: false,
      group: 'mandari-ingestor',
      ruleText: 'Disallow: /oparl/file',
      rule: { line: 3 },
      target: '/oparl/file/7',
    });
    expect(result.reason).toContain('ROB-2');
  });

  it('ROB-2: on equal length the first rule in the file is reported, Allow still wins', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /a\nAllow: /a\nAllow: /*\n');

    const match = decidingRule(robots.groups[0]?.rules ?? [], '/a');

    expect(match?.rule).toMatchObject({ type: 'allow', line: 3 });
  });
});

describe('percent-encoding equivalence (ROB-2, RFC 9309 §2.2.2)', () => {
  it.each([
    ['raw UTF-8 URL vs raw pattern', '/café', '/café/menu'],
    ['raw UTF-8 URL vs encoded pattern', '/caf%C3%A9', '/café/menu'],
    ['encoded URL vs raw pattern', '/café', '/caf%C3%A9/menu'],
    ['lower-case hex in URL', '/caf%C3%A9', '/caf%c3%a9/menu'],
    ['lower-case hex in pattern', '/caf%c3%a9', '/caf%C3%A9/menu'],
    ['Japanese path (Google ID_Encoding)', '/foo/bar/ツ', '/foo/bar/%E3%83%84'],
    ['encoded unreserved chars are decoded', '/foo/bar/%62%61%7A', '/foo/bar/baz'],
    ['%7E is ~', '/~user', '/%7Euser/x'],
    ['literal * in URL matches %2A in pattern', '/a%2Ab', '/a*b'],
    ['literal $ in URL matches %24 in pattern', '/price%24', '/price$'],
    ['space matches %20', '/a%20b', '/a b'],
  ])('Disallow matches: %s', (_name, pattern, path) => {
    const robots = parseRobots(`User-agent: *\nDisallow: ${pattern}\n`);

    expect(isAllowed(robots, 'mandari-ingestor', `https://ris.test${path}`)).toBe(false);
  });

  it.each([
    ['%2F is reserved and not decoded', '/a%2Fb', '/a/b'],
    ['%2A in a pattern is a literal *, no wildcard', '/a%2Ab', '/aXb'],
    ['different bytes', '/caf%C3%A9', '/cafe'],
  ])('Disallow does not match: %s', (_name, pattern, path) => {
    const robots = parseRobots(`User-agent: *\nDisallow: ${pattern}$\n`);

    expect(isAllowed(robots, 'mandari-ingestor', `https://ris.test${path}`)).toBe(true);
  });

  it.each([
    ['https://ris.test/caf%c3%a9?q=%7e#frag', '/caf%C3%A9?q=~'],
    ['https://ris.test', '/'],
    ['https://ris.test?a', '/?a'],
    ['https://ris.test/a?', '/a?'],
    ['https://ris.test/a/./b/../c', '/a/c'],
    ['https://ris.test/a*b$', '/a%2Ab%24'],
    ['/relative/path?x=1', '/relative/path?x=1'],
    [new URL('https://ris.test/ä'), '/%C3%A4'],
  ])('matchTarget(%s) → %s', (url, target) => {
    expect(matchTarget(url)).toBe(target);
  });

  it.each(['', 'not a url', 'ftp://ris.test/x', 'mailto:a@b.test'])(
    'matchTarget(%j) throws ROBOTS_INVALID_INPUT',
    (url) => {
      let thrown: unknown;
      try {
        matchTarget(url);
      } catch (error) {
        thrown = error;
      }

      expect(thrown).toBeInstanceOf(RobotsInputError);
      expect(isIngestorError(thrown, 'ROBOTS_INVALID_INPUT')).toBe(true);
    },
  );

  it('normalizePattern keeps wildcards and the end anchor', () => {
    expect(normalizePattern('/*/ö$')).toBe('/*/%C3%B6$');
  });
});

describe('/robots.txt and index.html (ROB-4, ROB-2a)', () => {
  const robots = parseRobots('User-agent: *\nDisallow: /\nAllow: /docs/index.html\nAllow: /old/index.htm\n');

  it.each([
    'https://ris.test/robots.txt',
    'https://ris.test/robots.txt?x=1',
    'http://RIS.test:8080/robots.txt',
  ])('ROB-4: %s is always allowed', (url) => {
    const result = matchRobots(robots, 'mandari-ingestor', url);

    expect(result.allowed).toBe(true);
    expect(result.reason).toContain('ROB-4');
  });

  it('ROB-4: only /robots.txt itself, not paths below it', () => {
    expect(isAllowed(robots, 'mandari-ingestor', 'https://ris.test/robots.txt/x')).toBe(false);
  });

  it.each([
    ['https://ris.test/docs/', true],
    ['https://ris.test/docs/index.html', true],
    ['https://ris.test/docs/other', false],
    ['https://ris.test/docs', false],
    ['https://ris.test/old/', true],
  ])('ROB-2a: Allow: …/index.html also allows …/ exactly: %s → %j', (url, expected) => {
    expect(isAllowed(robots, 'mandari-ingestor', url)).toBe(expected);
  });

  it.each([
    ['/a/index.html', '/a/$'],
    ['/index.htm', '/$'],
    ['/a/index.html5', '/a/$'],
    ['/a/main.html', null],
    ['/index/x', null],
  ])('indexHtmlDirectoryPattern(%j) → %j', (pattern, expected) => {
    expect(indexHtmlDirectoryPattern(pattern)).toBe(expected);
  });
});
