import { describe, expect, it } from 'vitest';
import { isAllowed, parseRobots } from '../../shared/robots';

/**
 * The project's own robots.txt verdict cases, in the form of the conformance corpus (file, agent, URL,
 * expected answer), so that a clone without that corpus still checks ROB-1, ROB-2, ROB-2a and ROB-4 on
 * whole files. Each expectation is read off the rule it cites (docs/rules.md), not off the code.
 */
interface OwnCase {
  rule: string;
  name: string;
  robotstxt: string;
  url: string;
  expected: boolean;
}

const AGENT = 'mandari-ingestor';
const host = 'https://ris.example.test';

const CASES: OwnCase[] = [
  {
    rule: 'ROB-1',
    name: 'an empty file allows everything',
    robotstxt: '',
    url: '/bi/si010.asp',
    expected: true,
  },
  {
    rule: 'ROB-1',
    name: 'only a * group: it applies to us',
    robotstxt: 'User-agent: *\nDisallow: /bi/\n',
    url: '/bi/si010.asp',
    expected: false,
  },
  {
    rule: 'ROB-1',
    name: 'our group replaces *, it does not add to it',
    robotstxt: 'User-agent: *\nDisallow: /\n\nUser-agent: mandari-ingestor\nDisallow: /intern/\n',
    url: '/bi/si010.asp',
    expected: true,
  },
  {
    rule: 'ROB-1',
    name: 'the product token is compared case-insensitively',
    robotstxt: 'User-agent: MANDARI-INGESTOR\nDisallow: /bi/\n',
    url: '/bi/vo020.asp',
    expected: false,
  },
  {
    rule: 'ROB-1',
    name: "another bot's group does not apply to us",
    robotstxt: 'User-agent: otherbot\nDisallow: /\n',
    url: '/bi/vo020.asp',
    expected: true,
  },
  {
    rule: 'ROB-2',
    name: 'the longest matching rule wins (allow inside a disallowed folder)',
    robotstxt: 'User-agent: *\nDisallow: /bi/\nAllow: /bi/oparl/\n',
    url: '/bi/oparl/1.0/system.asp',
    expected: true,
  },
  {
    rule: 'ROB-2',
    name: 'the longest matching rule wins (disallow inside an allowed folder)',
    robotstxt: 'User-agent: *\nAllow: /bi/\nDisallow: /bi/vo0\n',
    url: '/bi/vo020.asp?VOLFDNR=1',
    expected: false,
  },
  {
    rule: 'ROB-2',
    name: 'equal length: Allow wins',
    robotstxt: 'User-agent: *\nDisallow: /bi/\nAllow: /bi/\n',
    url: '/bi/si010.asp',
    expected: true,
  },
  {
    rule: 'ROB-2',
    name: '$ anchors the end: a PDF is disallowed …',
    robotstxt: 'User-agent: *\nDisallow: /*.pdf$\n',
    url: '/files/plan.pdf',
    expected: false,
  },
  {
    rule: 'ROB-2',
    name: '… and the same path with a query is not (the query is matched too)',
    robotstxt: 'User-agent: *\nDisallow: /*.pdf$\n',
    url: '/files/plan.pdf?download=1',
    expected: true,
  },
  {
    rule: 'ROB-2',
    name: 'the query is matched',
    robotstxt: 'User-agent: *\nDisallow: /*?print=1\n',
    url: '/bi/vo020.asp?print=1',
    expected: false,
  },
  {
    rule: 'ROB-2',
    name: 'paths are case-sensitive',
    robotstxt: 'User-agent: *\nDisallow: /Dokumente/\n',
    url: '/dokumente/a.pdf',
    expected: true,
  },
  {
    rule: 'ROB-2',
    name: 'a non-ASCII rule matches its percent-encoded form',
    robotstxt: 'User-agent: *\nDisallow: /ausschüsse/\n',
    url: '/ausschüsse/umwelt',
    expected: false,
  },
  {
    rule: 'ROB-2a',
    name: 'a User-agent value counts by its leading token',
    robotstxt: 'User-agent: mandari-ingestor/1.2\nDisallow: /bi/\n',
    url: '/bi/si010.asp',
    expected: false,
  },
  {
    rule: 'ROB-2a',
    name: 'a misspelt key is accepted',
    robotstxt: 'User-agent: *\nDissallow: /intern/\n',
    url: '/intern/a.html',
    expected: false,
  },
  {
    rule: 'ROB-2a',
    name: 'a missing colon is accepted',
    robotstxt: 'User-agent: *\nDisallow /intern/\n',
    url: '/intern/a.html',
    expected: false,
  },
  {
    rule: 'ROB-2a',
    name: 'Allow: …/index.html also allows …/',
    robotstxt: 'User-agent: *\nDisallow: /bi/\nAllow: /bi/index.html\n',
    url: '/bi/',
    expected: true,
  },
  {
    rule: 'ROB-2a',
    name: 'a byte-order mark at the start is skipped',
    robotstxt: '\ufeffUser-agent: *\nDisallow: /bi/\n',
    url: '/bi/si010.asp',
    expected: false,
  },
  {
    rule: 'ROB-4',
    name: '/robots.txt itself is always allowed',
    robotstxt: 'User-agent: *\nDisallow: /\n',
    url: '/robots.txt',
    expected: true,
  },
];

describe('robots.txt verdicts: the project’s own cases', () => {
  it.each(CASES.map((c) => [`${c.rule}: ${c.name}`, c] as const))('%s', (_title, c) => {
    const robots = parseRobots(c.robotstxt);
    expect(isAllowed(robots, AGENT, `${host}${c.url}`)).toBe(c.expected);
  });
});
