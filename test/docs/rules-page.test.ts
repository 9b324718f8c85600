import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { currentRulesPage, RULES_PAGE_PATH } from '../../shared/docs/generate';
import { collectRulesConstants, PUBLISHED_ONLY } from '../../shared/docs/rules-constants';
import {
  dauer,
  groesse,
  quietSequence,
  renderRulesPage,
  sparingSequence,
} from '../../shared/docs/rules-page';
import { quietDoublingMinutes, sparingLadderMinutes } from '../../shared/schedule/constants';
import { unrenderedConstants } from './support';

/** Every implemented rule of docs/rules.md; the page for municipalities states each one with its number. */
const RULE_IDS = [
  ...range('ID', 4),
  ...range('ROB', 10),
  'ROB-2a',
  ...range('RATE', 9),
  ...range('RED', 3),
  ...range('SCH', 12),
  ...range('FULL', 8),
  ...range('ONB', 4),
  ...range('DOC', 7),
  ...range('DEL', 5),
  ...range('PRV', 4),
  ...range('PHO', 3),
  ...range('ERR', 7),
  ...range('OPT', 4),
  ...range('B', 4),
];

function range(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
}

describe('docs/abrufregeln.md: generated from the constants the code uses', () => {
  it('the committed page equals the page the code renders now (run: npx tsx scripts/generate-rules-page.ts)', () => {
    const committed = readFileSync(RULES_PAGE_PATH, 'utf8');
    expect(committed, 'docs/abrufregeln.md is stale: npx tsx scripts/generate-rules-page.ts').toBe(
      currentRulesPage(),
    );
  });

  it('states every implemented rule with its number (the rule book, docs/rules.md, lists them all)', () => {
    const page = currentRulesPage();
    const missing = RULE_IDS.filter((id) => !page.includes(`**${id}**`));
    expect(missing).toEqual([]);
  });

  it('RATE-9: the one sentence for hosting providers — councils on one server share its pace, one steady visitor', () => {
    const rate9 = currentRulesPage()
      .split('\n')
      .find((l) => l.startsWith('- **RATE-9** '));
    expect(rate9).toContain(
      'Betreiben Sie als Rechenzentrum die Ratsinformationssysteme vieler Kommunen auf einem Server, teilen sich alle diese Kommunen seinen Takt — Sie sehen einen einzigen, gleichmäßigen Besucher, nie einen je Kommune.',
    );
    // The pace wins over the cadence, for every council on the server by the same factor (issue 27).
    expect(rate9).toContain('um denselben Faktor seltener ab, keine fällt heraus');
  });

  it('a changed constant changes the page — the check fails until the page is regenerated', () => {
    const c = collectRulesConstants();
    const committed = readFileSync(RULES_PAGE_PATH, 'utf8');
    const slower = renderRulesPage({ ...c, rate: { ...c.rate, maxSourceIntervalSeconds: 45 } });
    expect(slower).not.toBe(committed);
    expect(slower).toContain('bis 45 Sekunden');
    expect(committed).toContain('bis 30 Sekunden');
  });

  it('every number of the constants is rendered: changing any one of them changes the page', () => {
    const { tried, unrendered } = unrenderedConstants(collectRulesConstants(), renderRulesPage);
    expect(tried).toBeGreaterThan(80);
    expect(unrendered).toEqual([]);
  });

  it('derived sequences agree with the code’s own functions (SCH-3, ERR-4)', () => {
    const c = collectRulesConstants();
    const base = c.cadence.periods.find((p) => p.id === 'weekdayDay')?.baseMinutes ?? 0;
    expect(quietSequence(c.cadence, base, 13)).toEqual(quietDoublingMinutes(base, 13));
    expect(sparingSequence(c.errors.ladder)).toEqual(sparingLadderMinutes());
    expect(c.full.slicesOnExampleDate).toBe(206);
    expect(c.cadence.checkFigure.weekSyncs).toBe(131);
  });

  it('German units as published', () => {
    expect(dauer(24 * 3_600_000)).toBe('24 Stunden');
    expect(dauer(7 * 86_400_000, 'dativ')).toBe('7 Tagen');
    expect(dauer(100)).toBe('0,1 Sekunden');
    expect(dauer(15 * 60_000)).toBe('15 Minuten');
    expect(groesse(500 * 1024)).toBe('500 KiB');
    expect(groesse(80 * 1000 * 1000)).toBe('80 MB');
  });

  it('the one number shared/ cannot import is listed apart (PHO-1 schedule, checked in test/cdk)', () => {
    expect(Object.keys(PUBLISHED_ONLY)).toEqual(['photosWeekdayHour']);
  });
});
