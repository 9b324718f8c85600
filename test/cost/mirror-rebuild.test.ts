import { describe, expect, it } from 'vitest';
import { mirrorRebuildPrice } from '../../bench/cost/mirror-move';
import { PRICES, USD_TO_EUR } from '../../bench/cost/prices';

/**
 * Issue 28: the one-off price of `ingestor mirror rebuild --all` (bench/cost/mirror-move.ts) is the
 * command's requests priced one by one — the arithmetic kept honest against the price table.
 */
describe('mirror rebuild price (issue 28)', () => {
  const eur = (n: number, price: keyof typeof PRICES) => n * PRICES[price].usd * USD_TO_EUR;

  it('one GET per record, one LIST per 1,000, the item and its byList copy as IA writes; hours at the rate', () => {
    const items = 2_000_000;
    const price = mirrorRebuildPrice({ items, avgItemBytes: 1500, ratePerSecond: 200, usdToEur: USD_TO_EUR });
    expect(price.s3Gets).toBe(items);
    expect(price.s3Lists).toBe(items / 1000);
    // ⌈1.5 KB⌉ = 2 units for the item, 1 for its byList copy.
    expect(price.iaWriteUnits).toBe(items * 3);
    expect(price.eur.mirrorWrites).toBeCloseTo(eur(items * 3, 'dynamoIaWriteUnit'), 6);
    expect(price.eur.s3).toBeCloseTo(eur(items / 1000, 's3PutRequest') + eur(items, 's3GetRequest'), 6);
    expect(price.eur.total).toBeCloseTo(price.eur.s3 + price.eur.mirrorWrites + price.eur.state, 9);
    expect(price.hours).toBeCloseTo(items / 200 / 3600, 9);
    // Objects of no body have no byList copy.
    const fewer = mirrorRebuildPrice({
      items,
      listCopies: items / 2,
      avgItemBytes: 1500,
      ratePerSecond: 200,
      usdToEur: USD_TO_EUR,
    });
    expect(fewer.iaWriteUnits).toBe(items * 2 + items / 2);
  });

  it('scales with the items: ten times the records, ten times the price and the time', () => {
    const one = mirrorRebuildPrice({
      items: 1e6,
      avgItemBytes: 900,
      ratePerSecond: 200,
      usdToEur: USD_TO_EUR,
    });
    const ten = mirrorRebuildPrice({
      items: 1e7,
      avgItemBytes: 900,
      ratePerSecond: 200,
      usdToEur: USD_TO_EUR,
    });
    expect(ten.eur.total / one.eur.total).toBeCloseTo(10, 6);
    expect(ten.hours / one.hours).toBeCloseTo(10, 9);
  });
});
