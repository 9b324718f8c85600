import { describe, expect, it } from 'vitest';
import { isAllowed, parseRobots, ROBOTS_MAX_BYTES, userAgentToken } from '../../shared/robots';

const enc = new TextEncoder();

function bytes(...parts: (string | number[] | Uint8Array)[]): Uint8Array {
  const chunks = parts.map((part) => (typeof part === 'string' ? enc.encode(part) : Uint8Array.from(part)));
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Deterministic pseudo-random bytes (mulberry32), so a failure can be reproduced. */
function junk(length: number, seed: number): Uint8Array {
  let state = seed;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out[i] = (t ^ (t >>> 14)) & 0xff;
  }
  return out;
}

describe('parseRobots: groups (ROB-1, RFC 9309 §2.1)', () => {
  it('ROB-1: consecutive User-agent lines form one group, a User-agent after a rule opens the next', () => {
    const robots = parseRobots('User-agent: a\nUser-agent: B\nDisallow: /x\nUser-agent: c\nAllow: /y\n');

    expect(robots.groups.map((g) => g.tokens)).toEqual([['a', 'b'], ['c']]);
    expect(robots.groups[0]?.rules).toEqual([{ type: 'disallow', pattern: '/x', value: '/x', line: 3 }]);
  });

  it('ROB-1: blank, unknown, Sitemap and Crawl-delay lines do not end a group', () => {
    const robots = parseRobots(
      'User-agent: a\n\nFoo: bar\nSitemap: https://x.test/s.xml\nCrawl-delay: 3\nUser-agent: b\nDisallow: /\n',
    );

    expect(robots.groups).toHaveLength(1);
    expect(robots.groups[0]?.tokens).toEqual(['a', 'b']);
    expect(robots.groups[0]?.crawlDelaySeconds).toBe(3);
  });

  it('ROB-1: rules before any User-agent line belong to no group and are counted as ignored', () => {
    const robots = parseRobots('Disallow: /\nAllow: /x\nUser-agent: *\nDisallow: /private\n');

    expect(robots.groups).toHaveLength(1);
    expect(robots.groups[0]?.rules.map((r) => r.pattern)).toEqual(['/private']);
    expect(robots.ignoredLines).toBe(2);
    expect(isAllowed(robots, 'mandari-ingestor', 'https://ris.test/anything')).toBe(true);
  });

  it('ROB-1: a group with no rules is kept (it still replaces *)', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /\n\nUser-agent: mandari-ingestor\n');

    expect(robots.groups[1]).toEqual({
      userAgents: ['mandari-ingestor'],
      tokens: ['mandari-ingestor'],
      rules: [],
    });
    expect(isAllowed(robots, 'mandari-ingestor', 'https://ris.test/x')).toBe(true);
  });

  it('ROB-2: an empty Disallow is kept as a rule with an empty pattern (it matches nothing)', () => {
    const robots = parseRobots('User-agent: *\nDisallow:\n');

    expect(robots.groups[0]?.rules).toEqual([{ type: 'disallow', pattern: '', value: '', line: 2 }]);
    expect(isAllowed(robots, 'x', 'https://ris.test/')).toBe(true);
  });

  it.each([
    ['mandari-ingestor', 'mandari-ingestor'],
    ['Mandari-Ingestor/2.0 (+https://mandari.de/ingestor/)', 'mandari-ingestor'],
    ['mandari-ingestor bot', 'mandari-ingestor'],
    ['FOO BAR', 'foo'],
    ['*', '*'],
    ['* everyone', '*'],
    ['*\tbots', '*'],
    ['*bot', null],
    ['1bot', null],
    ['Stadt_Bot2', 'stadt_bot'],
  ])('ROB-2a: User-agent value %j selects token %j', (value, token) => {
    expect(userAgentToken(value)).toBe(token);
  });
});

describe('parseRobots: line syntax (ROB-2a)', () => {
  it.each([
    ['useragent: foo\ndisallow: /a', 'foo', '/a'],
    ['user agent: foo\ndisallow: /a', 'foo', '/a'],
    ['User-agents: foo\nDisallowed: /a', 'foo', '/a'],
    ['User-agent: foo\ndissallow: /a', 'foo', '/a'],
    ['User-agent: foo\ndissalow: /a', 'foo', '/a'],
    ['User-agent: foo\ndisalow: /a', 'foo', '/a'],
    ['User-agent: foo\ndiasllow: /a', 'foo', '/a'],
    ['User-agent: foo\ndisallaw: /a', 'foo', '/a'],
    ['User-agent: foo\nDisallow-x: /a', 'foo', '/a'],
    ['user-agent foo\ndisallow /a', 'foo', '/a'],
    ['USER-AGENT : foo\nDISALLOW\t:\t/a   ', 'foo', '/a'],
  ])('ROB-2a: key typos, prefixes and a missing colon are accepted: %j', (text, token, pattern) => {
    const robots = parseRobots(text);

    expect(robots.groups[0]?.tokens).toEqual([token]);
    expect(robots.groups[0]?.rules[0]).toMatchObject({ type: 'disallow', pattern });
  });

  it('ROB-2a: "Allowance:" counts as Allow (key prefix)', () => {
    expect(parseRobots('User-agent: a\nAllowance: /x').groups[0]?.rules[0]?.type).toBe('allow');
  });

  it('ROB-2a: without a colon only exactly two words count', () => {
    const robots = parseRobots('User-agent: a\ndisallow /a /b\ndisallow\n');

    expect(robots.groups[0]?.rules).toEqual([]);
    expect(robots.ignoredLines).toBe(2);
  });

  it('RFC 9309 §2.2.3: # starts a comment anywhere, also inside a path', () => {
    const robots = parseRobots('# header\nUser-agent: a # the a group\nDisallow: /foo/quz#qux\n');

    expect(robots.groups[0]?.userAgents).toEqual(['a']);
    expect(robots.groups[0]?.rules[0]?.pattern).toBe('/foo/quz');
  });

  it('ROB-2a: only ASCII whitespace is trimmed — a non-breaking space before the key invalidates the line', () => {
    const robots = parseRobots('User-agent: a\n\u00a0Disallow: /x\n\u000bAllow: /y\u000c\n');

    expect(robots.groups[0]?.rules).toEqual([{ type: 'allow', pattern: '/y', value: '/y', line: 3 }]);
  });

  it('a NUL byte ends the line, as in Google’s C-string parser', () => {
    const robots = parseRobots(bytes('User-agent: a\nDisallow: /a', [0], 'bc\n'));

    expect(robots.groups[0]?.rules[0]?.pattern).toBe('/a');
  });

  it.each([
    ['10', 10],
    ['0.5', 0.5],
    ['  7  # comment', 7],
    ['abc', undefined],
    ['-3', undefined],
    ['1e3', undefined],
  ])('ROB-10: Crawl-delay %j → %j seconds', (value, seconds) => {
    const robots = parseRobots(`User-agent: a\nCrawl-delay: ${value}\nDisallow: /x\n`);

    expect(robots.groups[0]?.crawlDelaySeconds).toBe(seconds);
  });

  it('ROB-10: several Crawl-delay lines in a group keep the largest; Sitemap is ignored', () => {
    const robots = parseRobots('User-agent: a\nCrawl-delay: 2\nSitemap: https://x.test/\nCrawl-delay: 9\n');

    expect(robots.groups[0]?.crawlDelaySeconds).toBe(9);
    expect(robots.ignoredLines).toBe(0);
  });
});

describe('parseRobots: line ends and byte order marks (ROB-2a)', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('RFC 9309 §2.2: %s line ends separate lines, CRLF counts once', (_name, eol) => {
    const text = ['User-agent: a', 'Disallow: /x', '', 'User-agent: b', 'Disallow: /y'].join(eol);

    const robots = parseRobots(text);

    expect(robots.groups.map((g) => g.tokens)).toEqual([['a'], ['b']]);
    expect(robots.groups[1]?.rules[0]?.line).toBe(5);
  });

  it('RFC 9309 §2.2: mixed line ends and no final newline', () => {
    const robots = parseRobots('User-agent: a\r\nDisallow: /x\rUser-agent: b\n\r\nDisallow: /y');

    expect(robots.groups.map((g) => g.rules.map((r) => r.pattern))).toEqual([['/x'], ['/y']]);
  });

  it.each([
    ['full BOM as text', '\ufeffUser-agent: a\nDisallow: /x\n'],
    ['full BOM bytes', bytes([0xef, 0xbb, 0xbf], 'User-agent: a\nDisallow: /x\n')],
    ['partial BOM EF BB', bytes([0xef, 0xbb], 'User-agent: a\nDisallow: /x\n')],
    ['partial BOM EF', bytes([0xef], 'User-agent: a\nDisallow: /x\n')],
  ])('ROB-2a: a leading %s is skipped', (_name, input) => {
    const robots = parseRobots(input);

    expect(robots.groups[0]?.tokens).toEqual(['a']);
    expect(isAllowed(robots, 'a', 'https://ris.test/x')).toBe(false);
  });

  it('ROB-2a: a broken BOM makes the first line garbage', () => {
    const robots = parseRobots(bytes([0xef, 0x11, 0xbf], 'User-agent: a\nDisallow: /x\n'));

    expect(robots.groups).toEqual([]);
    expect(isAllowed(robots, 'a', 'https://ris.test/x')).toBe(true);
  });

  it('ROB-2a: a BOM in the middle of the file invalidates that line (no String.trim trap)', () => {
    const robots = parseRobots('User-agent: a\n\ufeffDisallow: /x\n');

    expect(robots.groups[0]?.rules).toEqual([]);
    expect(isAllowed(robots, 'a', 'https://ris.test/x')).toBe(true);
  });
});

describe('parseRobots: bad input never crashes', () => {
  it.each([1, 2, 3, 4, 5])(
    'binary junk (seed %i) parses without throwing and yields no rules from nothing',
    (seed) => {
      const robots = parseRobots(junk(64 * 1024, seed));

      expect(robots.evaluatedBytes).toBe(64 * 1024);
      expect(robots.ignoredLines).toBeGreaterThan(0);
    },
  );

  it('binary junk around a valid group keeps the group', () => {
    const robots = parseRobots(bytes(junk(4096, 7), '\nUser-agent: *\nDisallow: /private\n', junk(4096, 8)));

    const star = robots.groups.find((g) => g.tokens.includes('*'));
    expect(star?.rules.map((r) => r.pattern)).toContain('/private');
    expect(isAllowed(robots, 'mandari-ingestor', 'https://ris.test/private/a')).toBe(false);
  });

  it('invalid UTF-8 in a value is percent-encoded byte by byte (RFC 9309 §2.2.2)', () => {
    const robots = parseRobots(bytes('User-agent: *\nDisallow: /a', [0xff, 0xfe], '\n'));

    expect(robots.groups[0]?.rules[0]?.pattern).toBe('/a%FF%FE');
    expect(robots.groups[0]?.rules[0]?.value).toBe('/a\ufffd\ufffd');
  });

  it('an HTML page served as robots.txt is read as text: its lines are not rules', () => {
    const html = [
      '<!DOCTYPE html>',
      '<html lang="de"><head><meta charset="utf-8"><title>Ratsinformationssystem</title></head>',
      '<body>',
      '<p>User-agent: * Disallow: /</p>',
      '<a href="https://ris.test/">Start</a>',
      '<script>var x = {disallow: 1};</script>',
      '</body></html>',
    ].join('\n');

    const robots = parseRobots(html);

    expect(robots.groups).toEqual([]);
    expect(robots.ignoredLines).toBe(7);
    expect(isAllowed(robots, 'mandari-ingestor', 'https://ris.test/anything')).toBe(true);
  });

  it('an empty body has no groups', () => {
    expect(parseRobots('')).toEqual({ groups: [], evaluatedBytes: 0, truncated: false, ignoredLines: 0 });
    expect(parseRobots(new Uint8Array()).groups).toEqual([]);
  });
});

describe('parseRobots: 500 KiB limit (ROB-5)', () => {
  const head = 'User-agent: *\nDisallow: /early\n';

  /** `head`, one comment line, then `tail` starting at byte offset `tailOffset` (ASCII only). */
  function padded(tailOffset: number, tail: string): string {
    const commentLength = tailOffset - head.length - 1;
    return `${head}#${'-'.repeat(commentLength - 1)}\n${tail}`;
  }

  it('ROB-5: the limit is 500 KiB = 512000 bytes', () => {
    expect(ROBOTS_MAX_BYTES).toBe(512_000);
  });

  it('ROB-5: a rule after the first 512000 bytes is ignored', () => {
    const text = padded(ROBOTS_MAX_BYTES, 'Disallow: /late\n');

    const robots = parseRobots(text);

    expect(robots.truncated).toBe(true);
    expect(robots.evaluatedBytes).toBe(ROBOTS_MAX_BYTES);
    expect(robots.groups[0]?.rules.map((r) => r.pattern)).toEqual(['/early']);
    expect(isAllowed(robots, 'mandari-ingestor', 'https://ris.test/late')).toBe(true);
  });

  it('ROB-5: a rule that ends exactly at the limit still counts', () => {
    const rule = 'Disallow: /edge';
    const text = padded(ROBOTS_MAX_BYTES - rule.length, `${rule}\nDisallow: /late\n`);

    const robots = parseRobots(text);

    expect(robots.groups[0]?.rules.map((r) => r.pattern)).toEqual(['/early', '/edge']);
  });

  it('ROB-5: a rule cut by the limit is dropped, not evaluated half (an Allow cut short would allow more)', () => {
    const text = padded(ROBOTS_MAX_BYTES - 'Allow: /priv'.length, 'Allow: /private/public-part\n');

    const robots = parseRobots(text);

    expect(robots.groups[0]?.rules.map((r) => r.pattern)).toEqual(['/early']);
  });

  it('ROB-5: the limit counts bytes, not characters (multi-byte UTF-8)', () => {
    // 'ä' is two bytes: 300000 of them exceed the limit although the text has fewer chars.
    const text = `${head}# ${'ä'.repeat(300_000)}\nDisallow: /late\n`;

    const robots = parseRobots(text);

    expect(text.length).toBeLessThan(ROBOTS_MAX_BYTES);
    expect(robots.truncated).toBe(true);
    expect(robots.groups[0]?.rules.map((r) => r.pattern)).toEqual(['/early']);
  });

  it('ROB-5: bytes input is cut the same way; maxBytes can be lowered', () => {
    const robots = parseRobots(enc.encode('User-agent: *\nDisallow: /a\nDisallow: /b\n'), { maxBytes: 27 });

    expect(robots.truncated).toBe(true);
    expect(robots.groups[0]?.rules.map((r) => r.pattern)).toEqual(['/a']);
  });

  it('ROB-5: a long robots.txt parses quickly', () => {
    const lines: string[] = ['User-agent: *'];
    for (let i = 0; lines.join('\n').length < ROBOTS_MAX_BYTES; i++) {
      for (let j = 0; j < 1000; j++) lines.push(`Disallow: /path/${i}/${j}/*.pdf$`);
    }
    const started = performance.now();

    const robots = parseRobots(lines.join('\n'));

    expect(performance.now() - started).toBeLessThan(3_000);
    expect(robots.groups[0]?.rules.length).toBeGreaterThan(10_000);
  });
});

describe('parseRobots: percent-normalised patterns (RFC 9309 §2.2.2)', () => {
  it.each([
    ['/café', '/caf%C3%A9', '/café'],
    ['/caf%c3%a9', '/caf%C3%A9', '/caf%c3%a9'],
    ['/%7Euser', '/~user', '/%7Euser'],
    ['/a%2fb', '/a%2Fb', '/a%2fb'],
    ['/ツ/*', '/%E3%83%84/*', '/ツ/*'],
    ['/*.pdf$', '/*.pdf$', '/*.pdf$'],
    ['/a$b', '/a%24b', '/a$b'],
    ['/100%', '/100%', '/100%'],
  ])('Disallow: %s → pattern %s (shown as %s)', (value, pattern, shown) => {
    const rule = parseRobots(`User-agent: *\nDisallow: ${value}\n`).groups[0]?.rules[0];

    expect(rule?.pattern).toBe(pattern);
    expect(rule?.value).toBe(shown);
  });
});
