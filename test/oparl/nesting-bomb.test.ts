import { describe, expect, it } from 'vitest';
import { startFakeCouncil } from '../../demo';
import { isIngestorError } from '../../shared/errors';
import { MAX_PAGE_JSON_DEPTH, MAX_PAGE_JSON_OBJECTS } from '../../shared/oparl/constants';
import { parseOParlJson } from '../../shared/oparl/json';
import { pauseForRun } from '../../shared/schedule/sparing';
import { useAwsTestbed } from '../support/aws';
import { harness, liveMirror, TestClock } from '../support/oparl-harness';

/**
 * Issue 13, defect 5: a JSON nesting bomb (a ~20 KB list page with a 10,000-deep array) overflowed the
 * stack of the object walks and failed every run of the source. Bounded at parsing (named limits),
 * such a page is a failure of its list only (SCH-8 lists, ERR-4 counts it as any list failure).
 */
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const pageWith = (value: string): string =>
  `{"data":[{"id":"https://ris.test/p/1","type":"https://schema.oparl.org/1.1/Paper","nested":${value}}],"links":{}}`;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isIngestorError(error) ? error.code : `untyped ${String(error)}`;
  }
  return undefined;
}

describe('JSON nesting and width bounds of a page', () => {
  it('JSON.parse itself reads a million-deep array (V8 parses iteratively); only our walks were at risk', () => {
    expect(() => JSON.parse(nested(1_000_000))).not.toThrow();
  });

  it('a 10,000-deep page is refused with a typed error, whatever walks it later', () => {
    const text = pageWith(nested(10_000));
    expect(text.length).toBeLessThan(21_000);
    expect(codeOf(() => parseOParlJson(text))).toBe('OPARL_TOO_DEEP');
  });

  it('nesting up to the bound parses; one level more is refused', () => {
    // the page object, `data`, the item: 3 levels before the nested value
    const fits = MAX_PAGE_JSON_DEPTH - 3;
    expect(codeOf(() => parseOParlJson(pageWith(nested(fits))))).toBeUndefined();
    expect(codeOf(() => parseOParlJson(pageWith(nested(fits + 1))))).toBe('OPARL_TOO_DEEP');
  });

  it('a page of more objects than the bound is refused; at the bound it parses', () => {
    const objects = (n: number) => `{"data":[${Array.from({ length: n }, () => '{}').join(',')}]}`;
    // the page object counts too
    expect(codeOf(() => parseOParlJson(objects(MAX_PAGE_JSON_OBJECTS - 1)))).toBeUndefined();
    expect(codeOf(() => parseOParlJson(objects(MAX_PAGE_JSON_OBJECTS)))).toBe('OPARL_TOO_MANY_OBJECTS');
  });
});

describe('a nesting bomb on one list (fake council on loopback, fault injection)', () => {
  const bed = useAwsTestbed();

  it('SCH-8 / ERR-4: the run completes the other lists, reports the paper list by name and reason, and costs no more than a list failure', async () => {
    const clock = new TestClock(Date.parse('2024-07-01T10:00:00+02:00'));
    const fake = await startFakeCouncil({
      now: clock.now,
      objectsPerList: 3,
      pageSize: 2,
      faults: [{ match: '*/paper', fault: { kind: 'nestingBomb' } }],
    });
    try {
      const h = harness(bed, fake.systemUrl, clock);
      const report = await h.sync('full');
      expect(report.stopReason).toBe('end');
      expect(report.complete).toBe(false);
      const paper = report.lists.find((l) => l.list === 'paper');
      expect(paper).toMatchObject({ outcome: 'failed', note: 'OPARL_TOO_DEEP' });
      const others = report.lists.filter((l) => l.list !== 'paper');
      expect(others.length).toBeGreaterThan(0);
      for (const list of others) expect(list.outcome).toBe('done');
      expect(report.failures).toEqual([
        expect.objectContaining({
          kind: 'other',
          list: 'paper',
          detail: expect.stringMatching(/^OPARL_TOO_DEEP: /),
        }),
      ]);
      // the other lists' objects are mirrored; nothing of the bomb page is
      const live = await liveMirror(h, ['organization', 'person', 'meeting', 'paper']);
      const types = [...live.keys()].map((k) => k.split(' ')[0]);
      expect(types.filter((t) => t === 'organization')).toHaveLength(3);
      expect(types.filter((t) => t === 'meeting')).toHaveLength(3);
      expect(types).not.toContain('paper');
      // a list failure: kind `other`, no first-time pause (ERR-5); only the ERR-4 ladder counts the run
      const kinds = [...new Set(report.failures.map((f) => f.kind))];
      expect(pauseForRun(1, kinds, report.finishedAt)).toBeUndefined();
    } finally {
      await fake.close();
    }
  });
});
