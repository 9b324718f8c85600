import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentRulesBook, currentRulesPage, RULES_BOOK_PATH } from '../../shared/docs/generate';
import { type BookRule, bookSections, NOT_YET, renderRulesBook } from '../../shared/docs/rules-book';
import { collectRulesConstants } from '../../shared/docs/rules-constants';
import { repoRoot } from '../support/corpora';
import { unrenderedConstants } from './support';

/**
 * docs/rules.md, the rule book, stays true mechanically: it is rendered from the constants (a changed
 * number changes the book, and the committed book must equal the rendered one); every rule ID cited in
 * code, tests or docs is in the book; every rule in the book is proven by tests that cite it, kept in
 * modules that exist — or is marked "not yet implemented".
 */

/** A rule ID as cited: ROB-7, ROB-2a, B-1 … (not part of a longer token such as TOP-B-1 or ROB-10 for ROB-1). */
const RULE_ID =
  /(?<![A-Za-z0-9-])(?:ID|ROB|RATE|RED|SCH|FULL|ONB|DOC|DEL|PRV|PHO|ERR|OPT|OTH|B)-\d+[a-z]?(?![A-Za-z0-9])/g;
const CITING_FOLDERS = ['shared', 'functions', 'cli', 'infra', 'scripts', 'demo', 'test', 'bench', 'types'];
const CITING_DOCS = ['README.md', 'docs/operations.md'];
/** Generated from the book's own data, so they cite every rule by construction. */
const GENERATED = new Set(['docs/rules.md', 'docs/abrufregeln.md']);

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(full);
    return /\.(?:ts|mjs|js|md)$/.test(e.name) ? [full] : [];
  });
}

const rel = (file: string) => path.relative(repoRoot, file).split(path.sep).join('/');

/** Repository file (relative path) → the rule IDs it cites. */
function citations(): Map<string, Set<string>> {
  const files = [
    ...CITING_FOLDERS.flatMap((f) => filesUnder(path.join(repoRoot, f))),
    ...CITING_DOCS.map((d) => path.join(repoRoot, d)),
  ];
  const out = new Map<string, Set<string>>();
  for (const file of files) {
    const name = rel(file);
    if (GENERATED.has(name)) continue;
    out.set(name, new Set(readFileSync(file, 'utf8').match(RULE_ID) ?? []));
  }
  return out;
}

/** What is wrong between the book's rules and the citations in the repository (empty = consistent). */
function bookProblems(rules: BookRule[], cited: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  const inBook = new Set(rules.map((r) => r.id));
  for (const [file, ids] of cited) {
    for (const id of ids) if (!inBook.has(id)) problems.push(`${id} is cited in ${file} but not in the book`);
  }
  for (const rule of rules) {
    if (rule.home === NOT_YET) continue;
    if (rule.home.tests.length === 0) problems.push(`${rule.id} names no test`);
    if (rule.home.modules.length === 0) problems.push(`${rule.id} names no module`);
    for (const test of rule.home.tests) {
      if (!test.startsWith('test/')) problems.push(`${rule.id}: ${test} is not a test`);
      else if (!cited.get(test)?.has(rule.id)) problems.push(`${rule.id}: ${test} does not cite it`);
    }
  }
  return problems;
}

/**
 * Where the book says a rule is kept and it is not (empty = every module named is real): a module
 * that does not exist, or one that does not cite the rule's ID where the rule is applied — so a rule
 * that moves to another file (as the fetcher's behaviours did) cannot leave the book behind.
 */
function moduleProblems(
  rules: BookRule[],
  cited: Map<string, Set<string>>,
  exists: (p: string) => boolean,
): string[] {
  const problems: string[] = [];
  for (const rule of rules) {
    if (rule.home === NOT_YET) continue;
    for (const module of rule.home.modules) {
      if (!exists(module)) problems.push(`${rule.id}: module ${module} does not exist`);
      else if (!cited.get(module)?.has(rule.id))
        problems.push(`${rule.id}: module ${module} does not cite it`);
    }
  }
  return problems;
}

const existsInRepo = (p: string) => existsSync(path.join(repoRoot, p));

const rules = bookSections(collectRulesConstants()).flatMap((s) => s.rules);

describe('docs/rules.md: the rule book agrees with the code and the tests', () => {
  it('the committed book equals the book the code renders now (run: npx tsx scripts/generate-rules-page.ts)', () => {
    expect(readFileSync(RULES_BOOK_PATH, 'utf8'), 'docs/rules.md is stale: npm run docs').toBe(
      currentRulesBook(),
    );
  });

  it('every number of the constants is rendered: changing any one of them changes the book', () => {
    const { tried, unrendered } = unrenderedConstants(collectRulesConstants(), renderRulesBook);
    expect(tried).toBeGreaterThan(80);
    expect(unrendered).toEqual([]);
  });

  it('each rule ID appears once, in the families of the fetch rules', () => {
    const ids = rules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.replace(/-.*/, '')))).toEqual(
      new Set([
        'ID',
        'ROB',
        'RATE',
        'RED',
        'SCH',
        'FULL',
        'ONB',
        'DOC',
        'DEL',
        'PRV',
        'PHO',
        'ERR',
        'OPT',
        'OTH',
        'B',
      ]),
    );
    expect(ids.length).toBeGreaterThanOrEqual(90);
  });

  it('every cited rule is in the book; every rule is proven by tests that cite it', () => {
    expect(bookProblems(rules, citations())).toEqual([]);
  });

  it('every module the book names for a rule exists and cites that rule where it is applied', () => {
    expect(moduleProblems(rules, citations(), existsInRepo)).toEqual([]);
  });

  it('every rule is implemented since issue 17: none is marked not yet implemented', () => {
    expect(rules.filter((r) => r.home === NOT_YET).map((r) => r.id)).toEqual([]);
    expect(currentRulesBook()).not.toMatch(/Status: not yet implemented/);
  });

  it('the German page for municipalities states every implemented rule of the book', () => {
    const page = currentRulesPage();
    const missing = rules.filter((r) => r.home !== NOT_YET && !page.includes(`**${r.id}**`)).map((r) => r.id);
    expect(missing).toEqual([]);
  });

  it('the check finds each kind of disagreement', () => {
    const rule = (id: string, tests: string[], modules = ['shared/robots/verdict.ts']): BookRule => ({
      id,
      text: '',
      home: { modules, tests },
    });
    const unknown = ['ROB', '99'].join('-'); // not written whole, or this file would cite it
    const cited = new Map([
      ['test/robots/verdict.test.ts', new Set(['ROB-7', unknown])],
      ['shared/robots/verdict.ts', new Set(['ROB-7'])],
    ]);
    const book = [
      rule('ROB-7', ['test/robots/verdict.test.ts']),
      rule('ROB-8', ['test/robots/verdict.test.ts']),
      rule('ROB-9', []),
      rule('ROB-6', ['test/robots/verdict.test.ts'], ['shared/robots/nowhere.ts']),
      rule('ROB-5', ['shared/robots/verdict.ts']),
      { id: 'OTH-1', text: '', home: NOT_YET } as BookRule,
    ];
    expect(bookProblems(book, cited)).toEqual([
      `${unknown} is cited in test/robots/verdict.test.ts but not in the book`,
      'ROB-8: test/robots/verdict.test.ts does not cite it',
      'ROB-9 names no test',
      'ROB-6: test/robots/verdict.test.ts does not cite it',
      'ROB-5: shared/robots/verdict.ts is not a test',
    ]);
    expect(moduleProblems(book, cited, existsInRepo)).toEqual([
      'ROB-8: module shared/robots/verdict.ts does not cite it',
      'ROB-9: module shared/robots/verdict.ts does not cite it',
      'ROB-6: module shared/robots/nowhere.ts does not exist',
      'ROB-5: module shared/robots/verdict.ts does not cite it',
    ]);
    expect('ROB-10 ROB-2a TOP-B-1 B-3 OPT-5xx'.match(RULE_ID)).toEqual(['ROB-10', 'ROB-2a', 'B-3']);
  });
});
