import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  COST_BEGIN,
  COST_END,
  COST_RESULT_PATH,
  type CostResult,
  README_PATH,
  renderCostSection,
  withCostSection,
} from '../../bench/cost/readme';

/**
 * Issue 28: the README's "What it costs" section is generated from the cost bench's last result
 * (bench/cost-result.json) and cannot go stale: the committed README must equal the rendering, and
 * the committed figures must add up. No bench run here (that takes minutes); `bench/cost/readme.ts`
 * says how to refresh both.
 */
const result = JSON.parse(readFileSync(COST_RESULT_PATH, 'utf8')) as CostResult;
const readme = readFileSync(README_PATH, 'utf8');

/** Rounded to cents item by item: a sum may be off by half a cent per addend. */
const cents = (n: number) => 0.005 * n + 1e-9;

describe('README "What it costs" (issue 28)', () => {
  it('is the rendering of bench/cost-result.json (run `npx tsx bench/cost/readme.ts` after the bench)', () => {
    const begin = readme.indexOf(COST_BEGIN);
    const end = readme.indexOf(COST_END);
    expect(begin).toBeGreaterThan(0);
    expect(readme.slice(begin, end + COST_END.length)).toBe(renderCostSection(result));
    expect(withCostSection(readme, renderCostSection(result))).toBe(readme);
  });

  it('adds up: items to their service, services to the total, the total per 1,000 sources', () => {
    let total = 0;
    for (const [name, s] of Object.entries(result.services)) {
      const items = Object.values(s.items);
      const sum = items.reduce((acc, i) => acc + i.eur, 0);
      expect(Math.abs(sum - s.eur), name).toBeLessThanOrEqual(cents(items.length + 1));
      total += s.eur;
    }
    const services = Object.keys(result.services).length;
    expect(Math.abs(total - result.eurPerMonth)).toBeLessThanOrEqual(cents(services + 1));
    expect(result.eurPerMonthPer1000Sources).toBeCloseTo((result.eurPerMonth / result.sources) * 1000, 2);
    const own = result.fleet.find((f) => f.sources === result.sources);
    expect(own?.eurPerMonth).toBe(result.eurPerMonth);
    for (const f of result.fleet)
      expect(f.eurPer1000Sources).toBeCloseTo((f.eurPerMonth / f.sources) * 1000, 1);
    expect(result.fleet.map((f) => f.sources)).toEqual([1_000, 10_000, 100_000]);
  });

  it('adds up the VM comparison, and every lever’s “on” at the bench’s fleet is the bill as built', () => {
    for (const vm of [result.comparison.vmFilesOnDisk, result.comparison.vmFilesInS3]) {
      const { total, ...parts } = vm;
      const sum = Object.values(parts).reduce((a, b) => a + b, 0);
      expect(Math.abs(sum - (total ?? 0))).toBeLessThanOrEqual(cents(Object.keys(parts).length + 1));
    }
    for (const lever of result.levers.filter((l) => l.built)) {
      const at = lever.byFleet.find((f) => f.sources === result.sources);
      expect(at?.onEur, lever.lever).toBe(result.eurPerMonth);
    }
    // A what-if is billed against the code as built: its "off" is the bill.
    for (const lever of result.levers.filter((l) => !l.built)) {
      const at = lever.byFleet.find((f) => f.sources === result.sources);
      expect(at?.offEur, lever.lever).toBe(result.eurPerMonth);
    }
  });
});
