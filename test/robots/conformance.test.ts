/**
 * robots.txt conformance: every case of the robots conformance corpus (Google's unit tests, derived
 * cases and the differential corpus; outside the repository, found by test/support/corpora.ts) must
 * give its `expected` answer — our semantics as decided in the corpus's README ("Decision for this
 * project"). Cases with `expected: null` (empty URL, not an absolute URL) are skipped and counted
 * below. Without the corpus this file is skipped; the project's own cases of the same rules are in
 * match.test.ts, parse.test.ts, verdict.test.ts and own-cases.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAllowed, type ParsedRobots, parseRobots } from '../../shared/robots';
import { CORPUS_OPTIONS, robotsConformance } from '../support/corpora';

interface ConformanceCase {
  name: string;
  robotstxt: string;
  robotstxt_base64?: string;
  agent: string;
  url: string;
  allowed: boolean;
  expected: boolean | null;
  google_specific: boolean;
  features?: string[];
  google_specific_causes?: string[];
  source?: string;
}

const corpus = robotsConformance();

function load(file: string): ConformanceCase[] {
  if (!corpus.present) return [];
  return JSON.parse(readFileSync(path.join(corpus.dir, file), 'utf8')) as ConformanceCase[];
}

const CAUSE_RULES: Record<string, string> = {
  agentPrefix: 'ROB-2a',
  starSpace: 'ROB-2a',
  keyTypos: 'ROB-2a',
  missingColon: 'ROB-2a',
  indexHtml: 'ROB-2a',
  partialBom: 'ROB-2a',
  rawUrl: 'ROB-2',
  robotsTxtNotSpecial: 'ROB-4',
  lineTrunc: 'ROB-5',
};

const FEATURE_RULES: Record<string, string> = {
  bom: 'ROB-2a',
  'missing-colon': 'ROB-2a',
  'raw-non-ascii-url': 'ROB-2',
  'lowercase-hex-url': 'ROB-2',
  'long-line': 'ROB-5',
  'long-line-url': 'ROB-5',
  'rule-before-ua': 'ROB-1',
};

// Google test names → the rule (docs/rules.md) they exercise.
const NAME_RULES: [RegExp, string][] = [
  [/IndexHTML|BOM|Typos|AcceptUserAgentUpToFirstSpace|LineSyntax_Line-3/, 'ROB-2a'],
  [/LineTooLong/, 'ROB-5'],
  [/GlobalGroups|UserAgentValue|LineSyntax_Groups|SystemTest/, 'ROB-1'],
  [
    /LongestMatch|Encoding|SpecialCharacters|DocumentationChecks|CaseSensitive|REPLine|Escape|Path|LineEndings/,
    'ROB-2',
  ],
];

/** The ROB rules a case exercises, as far as its name, features and causes tell. */
function rulesOf(c: ConformanceCase): string[] {
  const rules = new Set<string>();
  for (const cause of c.google_specific_causes ?? []) {
    const rule = CAUSE_RULES[cause];
    if (rule) rules.add(rule);
  }
  for (const feature of c.features ?? []) {
    const rule = FEATURE_RULES[feature];
    if (rule) rules.add(rule);
  }
  for (const [pattern, rule] of NAME_RULES) if (pattern.test(c.name)) rules.add(rule);
  if (/^https?:\/\/[^/]+\/robots\.txt(?:[?#]|$)/.test(c.url)) rules.add('ROB-4');
  if (rules.size === 0) rules.add('ROB-1/ROB-2');
  return [...rules].sort();
}

function shorten(text: string, max = 70): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length} chars)`;
}

function title(c: ConformanceCase): string {
  const answer = c.expected ? 'allowed' : 'disallowed';
  const deviation = c.expected !== c.allowed ? ` (Google: ${c.allowed ? 'allowed' : 'disallowed'})` : '';
  return `${c.name} [${rulesOf(c).join(', ')}] ${c.agent} ${shorten(c.url)} → ${answer}${deviation}`;
}

// Bodies repeat across cases (one robots.txt, many URLs): parse each once.
const parsedBodies = new Map<string, ParsedRobots>();
function robotsOf(c: ConformanceCase): ParsedRobots {
  const key = c.robotstxt_base64 !== undefined ? `b64:${c.robotstxt_base64}` : `txt:${c.robotstxt}`;
  let parsed = parsedBodies.get(key);
  if (!parsed) {
    const body =
      c.robotstxt_base64 !== undefined
        ? new Uint8Array(Buffer.from(c.robotstxt_base64, 'base64'))
        : c.robotstxt;
    parsed = parseRobots(body);
    parsedBodies.set(key, parsed);
  }
  return parsed;
}

const files = [
  { file: 'robots-google-tests.json', total: 172, skipped: 4 },
  { file: 'robots-differential.json', total: 2000, skipped: 0 },
] as const;

const describeFiles = describe.skipIf(!corpus.present).each(files);

describeFiles('conformance: $file', CORPUS_OPTIONS, ({ file, total, skipped }) => {
  const cases = load(file);
  const runnable = cases.filter((c) => c.expected !== null);
  const nullCases = cases.filter((c) => c.expected === null);

  it(`has ${total} cases; ${skipped} with expected: null are skipped (not absolute URLs)`, () => {
    expect(cases).toHaveLength(total);
    expect(nullCases).toHaveLength(skipped);
    // Only the empty-URL system tests may lack an answer.
    for (const c of nullCases) expect(c.url).toBe('');
  });

  it.each(runnable.map((c) => [title(c), c] as const))('%s', (_title, c) => {
    const robots = robotsOf(c);

    const allowed = isAllowed(robots, c.agent, c.url);

    expect(allowed).toBe(c.expected);
  });
});
