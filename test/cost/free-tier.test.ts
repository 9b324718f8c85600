import { describe, expect, it } from 'vitest';
import { ALWAYS_FREE, applyFreeTier, type FreeAllowance, vmFreeEgressGb } from '../../bench/cost/free-tier';
import { emptyUsage, type PriceTable, priceUsage, vmComparison } from '../../bench/cost/model';
import { PRICES } from '../../bench/cost/prices';

/**
 * Issue 28: AWS's always-free allowances, applied apart from the list price (bench/cost/free-tier.ts).
 * Round prices (USD = EUR here) so every expected figure is computed by hand.
 */
function roundPrices(set: Partial<Record<keyof PriceTable, number>>): PriceTable {
  const table = {} as PriceTable;
  for (const [name, p] of Object.entries(PRICES))
    table[name as keyof PriceTable] = { usd: set[name as keyof PriceTable] ?? 0, per: p.per };
  return table;
}

const fn = (memoryMb: number, seconds: number, invocations: number) => ({
  invocations,
  seconds,
  memoryMb,
  arch: 'arm64' as const,
});

describe('always-free tier (issue 28)', () => {
  it('a month using less than an allowance pays nothing in that line; the list price stays as it was', () => {
    const usage = emptyUsage();
    usage.sqs.requests = 400_000;
    usage.metrics = { series: 4, alarms: 7, dashboards: 1 };
    const cost = priceUsage(
      usage,
      roundPrices({ sqsRequest: 1e-6, metricMonth: 1, alarmMonth: 2, dashboardMonth: 3 }),
      1,
    );
    expect(cost.eurPerMonth).toBeCloseTo(0.4 + 4 + 14 + 3, 9);
    const free = applyFreeTier(cost);
    expect(free.listEurPerMonth).toBe(cost.eurPerMonth);
    expect(free.freeTierEur).toBeCloseTo(cost.eurPerMonth, 9);
    expect(free.eurPerMonth).toBeCloseTo(0, 9);
    expect(free.byAllowance.sqsRequests).toMatchObject({
      allowance: 1_000_000,
      used: 400_000,
      free: 400_000,
    });
  });

  it('a month using more pays the rest at list price', () => {
    const usage = emptyUsage();
    usage.sqs.requests = 3_000_000;
    usage.metrics = { series: 34, alarms: 13, dashboards: 1 };
    const cost = priceUsage(
      usage,
      roundPrices({ sqsRequest: 1e-6, metricMonth: 1, alarmMonth: 2, dashboardMonth: 3 }),
      1,
    );
    const free = applyFreeTier(cost);
    // SQS 1 M of 3 M free; metrics 10 of 34; alarms 10 of 13; the one dashboard of 3.
    expect(free.byAllowance.sqsRequests?.eur).toBeCloseTo(1, 9);
    expect(free.byAllowance.cloudWatchMetrics?.eur).toBe(10);
    expect(free.byAllowance.cloudWatchAlarms?.eur).toBe(20);
    expect(free.byAllowance.cloudWatchDashboards).toMatchObject({ used: 1, free: 1, eur: 3 });
    expect(free.eurPerMonth).toBeCloseTo(2 + 24 + 6, 9);
  });

  it('pools an allowance across its items: Lambda GB-s of every function, egress of serving and ingest', () => {
    const usage = emptyUsage();
    // 300,000 GB-s and 200,000 GB-s (1024 MB × seconds): 500,000 in all, 400,000 free.
    usage.lambda = { sync: fn(1024, 300_000, 600_000), planner: fn(1024, 200_000, 600_000) };
    usage.dataTransfer = { internetOutGb: 70, cloudFrontOutGb: 500, cloudFrontRequests: 0, ingestOutGb: 50 };
    const prices = roundPrices({
      lambdaGbSecondArm: 0.001,
      lambdaRequest: 0.01,
      dataOutGb: 1,
      cloudFrontOutGb: 1,
    });
    const free = applyFreeTier(priceUsage(usage, prices, 1));
    expect(free.byAllowance.lambdaGbSeconds).toMatchObject({ used: 500_000, free: 400_000 });
    expect(free.byAllowance.lambdaGbSeconds?.eur).toBeCloseTo(400, 9);
    // 1.2 M invocations, 1 M free.
    expect(free.byAllowance.lambdaRequests?.eur).toBeCloseTo(10_000, 6);
    // 120 GB out to the internet (70 serving + 50 ingest), 100 free; CloudFront's own 1 TB covers its 500.
    expect(free.byAllowance.internetOutGb).toMatchObject({ used: 120, free: 100, eur: 100 });
    expect(free.byAllowance.cloudFrontOutGb).toMatchObject({ used: 500, free: 500, eur: 500 });
    expect(free.eurPerMonth).toBeCloseTo(100 + 2_000 + 20, 6);
  });

  it('spends a pooled allowance on the cheaper items first (the smaller credit: the free tier is not flattered)', () => {
    const usage = emptyUsage();
    usage.lambda = {
      a: fn(1024, 300_000, 0),
      b: { ...fn(1024, 300_000, 0), arch: 'x86_64' as const },
    };
    const prices = roundPrices({ lambdaGbSecondArm: 1, lambdaGbSecondX86: 2 });
    const free = applyFreeTier(priceUsage(usage, prices, 1));
    // 300,000 arm GB-s at 1, then 100,000 x86 GB-s at 2.
    expect(free.byAllowance.lambdaGbSeconds?.eur).toBe(300_000 + 200_000);
    expect(free.eurPerMonth).toBe(400_000);
  });

  it('gives DynamoDB its storage allowance only — on-demand request units are never free', () => {
    const usage = emptyUsage();
    usage.dynamodb = { readUnits: 1e6, writeUnits: 1e6, storageGb: 20, indexStorageGb: 10, pitr: true };
    const prices = roundPrices({
      dynamoReadUnit: 1e-6,
      dynamoWriteUnit: 1e-6,
      dynamoStorageGbMonth: 1,
      dynamoPitrGbMonth: 1,
    });
    const cost = priceUsage(usage, prices, 1);
    const free = applyFreeTier(cost);
    expect(free.byAllowance.dynamoStorageGb).toMatchObject({ used: 30, free: 25, eur: 25 });
    // Reads 1 + writes 1 + storage 5 (of 30) + PITR 20.
    expect(free.eurPerMonth).toBeCloseTo(1 + 1 + 5 + 20, 9);
  });

  it('gives provisioned capacity its 25 WCU and 25 RCU all month (unit-hours), pooled; on-demand units none', () => {
    const hours = (365.25 / 12) * 24;
    const usage = emptyUsage();
    usage.dynamodb = {
      readUnits: 1e6,
      writeUnits: 0,
      storageGb: 0,
      indexStorageGb: 0,
      pitr: false,
      // 30 WCU and 10 RCU held all month.
      provisioned: { wcuHours: 30 * hours, rcuHours: 10 * hours },
    };
    const prices = roundPrices({ dynamoReadUnit: 1e-6, dynamoWcuHour: 1, dynamoRcuHour: 1 });
    const cost = priceUsage(usage, prices, 1);
    expect(cost.services.dynamodb?.items['provisioned WCU-hours']?.eur).toBeCloseTo(30 * hours, 6);
    const free = applyFreeTier(cost);
    expect(free.byAllowance.dynamoProvisionedWcu?.eur).toBeCloseTo(25 * hours, 6);
    expect(free.byAllowance.dynamoProvisionedRcu?.eur).toBeCloseTo(10 * hours, 6);
    // What is left: 5 WCU all month and the on-demand reads (1 € of request units, never free).
    expect(free.eurPerMonth).toBeCloseTo(5 * hours + 1, 6);
  });

  it('takes nothing off what has no always-free allowance (S3, Upstash, Secrets Manager)', () => {
    const usage = emptyUsage();
    usage.s3 = { putRequests: 1000, getRequests: 1000, storageGb: 3 };
    usage.secrets = { secrets: 1, apiCalls: 100 };
    const cost = priceUsage(
      usage,
      roundPrices({ s3PutRequest: 1, s3GetRequest: 1, s3StorageGbMonth: 1, secretMonth: 1 }),
      1,
    );
    expect(applyFreeTier(cost).freeTierEur).toBe(0);
  });

  it('an allowance table passed in replaces the published one (the arithmetic, not the figures)', () => {
    const usage = emptyUsage();
    usage.sqs.requests = 10;
    const cost = priceUsage(usage, roundPrices({ sqsRequest: 1 }), 1);
    const one: Record<string, FreeAllowance> = {
      sqs: { quantity: 4, what: 'test', items: [{ service: 'sqs', item: 'requests' }], source: 'test' },
    };
    expect(applyFreeTier(cost, one)).toMatchObject({ freeTierEur: 4, eurPerMonth: 6 });
  });

  it('the VM gets the same 100 GB of egress, apart from its totals', () => {
    expect(vmFreeEgressGb(40)).toBe(40);
    expect(vmFreeEgressGb(250)).toBe(ALWAYS_FREE.internetOutGb.quantity);
    const prices = roundPrices({ smallVmMonth: 10, dataOutGb: 2 });
    const small = vmComparison(
      { filesGb: 0, databaseGb: 0, snapshotGb: 0, egressGb: 40, freeEgressGb: vmFreeEgressGb(40) },
      prices,
      1,
    );
    expect(small.filesOnDisk.total).toBe(10 + 80);
    expect(small.freeTier).toEqual({ egressGb: 40, eur: 80 });
    const large = vmComparison(
      { filesGb: 0, databaseGb: 0, snapshotGb: 0, egressGb: 250, freeEgressGb: vmFreeEgressGb(250) },
      prices,
      1,
    );
    expect(large.filesInS3.total).toBe(10 + 500);
    expect(large.freeTier).toEqual({ egressGb: 100, eur: 200 });
  });

  it('cites a page for every allowance', () => {
    for (const [name, a] of Object.entries(ALWAYS_FREE)) {
      expect(a.source, name).toMatch(/aws\.amazon\.com\/\S+/);
      expect(a.quantity, name).toBeGreaterThan(0);
    }
  });
});
