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

  it('issue 28: prints the list price first and the always-free tier beside it, never inside it (VM too)', () => {
    // A result from before the always-free tier: the committed one without its fields.
    const { alwaysFree: _free, ...listOnly } = result;
    const { vmFreeTier: _vmFree, ...comparisonListOnly } = result.comparison;
    const before: CostResult = {
      ...listOnly,
      fleet: result.fleet.map(({ alwaysFreeEurPerMonth: _f, ...f }) => f),
      comparison: comparisonListOnly,
    };
    const withFree: CostResult = {
      ...before,
      alwaysFree: {
        what: 'always-free tier, if this account runs nothing else',
        freeTierEur: 7.5,
        eurPerMonth: result.eurPerMonth - 7.5,
        eurPerMonthPer1000Sources: ((result.eurPerMonth - 7.5) / result.sources) * 1000,
        byAllowance: {
          sqsRequests: { what: 'SQS requests', allowance: 1_000_000, used: 3_000_000, eur: 0.34 },
        },
      },
      fleet: before.fleet.map((f) => ({ ...f, alwaysFreeEurPerMonth: f.eurPerMonth - 7.5 })),
      comparison: { ...result.comparison, vmFreeTier: { egressGb: 100, eur: 7.74 } },
    };
    const text = renderCostSection(withFree);
    const list = text.indexOf(`**≈ €${result.eurPerMonth.toFixed(2)} per month**`);
    const free = text.indexOf(`≈ €${(result.eurPerMonth - 7.5).toFixed(2)}`);
    expect(list).toBeGreaterThan(0);
    expect(free).toBeGreaterThan(list);
    // The list-price total row is unchanged; the free tier is a row of its own below it.
    expect(text).toContain(`| **total** | | **${result.eurPerMonth.toFixed(2)}** |`);
    expect(text).toContain(
      '| always-free tier, if this account runs nothing else | SQS requests 1,000,000 of 1,000,000 | −7.50 |',
    );
    expect(text).toContain(
      `| **total with the always-free tier** | | **${(result.eurPerMonth - 7.5).toFixed(2)}** |`,
    );
    const vmDisk = result.comparison.vmFilesOnDisk.total ?? 0;
    expect(text).toContain(`| **total with the always-free tier** | **${(vmDisk - 7.74).toFixed(2)}** |`);
    // Without the field (a result from before), the rendering is the list price alone.
    expect(renderCostSection(before)).not.toContain('always-free');
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
