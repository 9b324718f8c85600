import { describe, expect, it } from 'vitest';
import {
  HOURS_IN_MONTH,
  metricHoursOf,
  metricMonths,
  plannerDatapointsOfAnOrdinaryHour,
} from '../../bench/cost/metric-hours';
import {
  apiFloodCeilingEurPerHour,
  cpuSlowdown,
  expectedRequestSeconds,
  gbSeconds,
  type MonthlyUsage,
  type PriceTable,
  pacedRunSeconds,
  priceUsage,
  readUnits,
  vmComparison,
  writeUnits,
} from '../../bench/cost/model';
import { PRICES } from '../../bench/cost/prices';
import { metricSeries, type StackCount } from '../../bench/cost/stack-count';
import { METRICS } from '../../shared/observability';

/** A price table of round numbers, so the expected figures below are computed by hand. */
function roundPrices(set: Partial<Record<keyof PriceTable, number>>): PriceTable {
  const table = {} as PriceTable;
  for (const [name, p] of Object.entries(PRICES)) {
    table[name as keyof PriceTable] = { usd: set[name as keyof PriceTable] ?? 0, per: p.per };
  }
  return table;
}

function emptyUsage(): MonthlyUsage {
  return {
    lambda: {},
    sqs: { requests: 0 },
    dynamodb: { readUnits: 0, writeUnits: 0, storageGb: 0, indexStorageGb: 0, pitr: false },
    s3: { putRequests: 0, getRequests: 0, storageGb: 0 },
    logs: { ingestedGb: 0, storedGb: 0 },
    metrics: { series: 0, alarms: 0, dashboards: 0 },
    scheduler: { invocations: 0 },
    upstash: { commands: 0 },
    secrets: { secrets: 0, apiCalls: 0 },
    dataTransfer: { internetOutGb: 0, cloudFrontOutGb: 0, cloudFrontRequests: 0 },
  };
}

describe('cost model arithmetic (issue 18)', () => {
  it('bills a paced run its politeness wait: requests × interval (RATE-1) + work, waits overlapping across hosts', () => {
    expect(pacedRunSeconds({ requests: 30, intervalSeconds: 1, workSeconds: 2 })).toBe(32);
    expect(pacedRunSeconds({ requests: 30, intervalSeconds: 2, workSeconds: 2 })).toBe(62);
    expect(pacedRunSeconds({ requests: 40, intervalSeconds: 2, workSeconds: 1, hostsInParallel: 4 })).toBe(
      21,
    );
    expect(gbSeconds(3200, 512)).toBe(1600);
  });

  it('stretches CPU work below a full vCPU (1,769 MB), never above', () => {
    expect(cpuSlowdown(1769)).toBe(1);
    expect(cpuSlowdown(3538)).toBe(1);
    expect(cpuSlowdown(1769 / 4)).toBe(4);
  });

  it('counts DynamoDB request units as billed: 1 KB per write unit, 4 KB per read unit, half when eventual', () => {
    expect(writeUnits(10)).toBe(1);
    expect(writeUnits(1024)).toBe(1);
    expect(writeUnits(1025)).toBe(2);
    expect(readUnits(0, false)).toBe(0.5);
    expect(readUnits(4096, true)).toBe(1);
    expect(readUnits(8193, true)).toBe(3);
  });

  it('prices a hand-computed small case', () => {
    const usage = emptyUsage();
    // 100 syncs of 30 requests at 1 s + 2 s work = 3,200 s at 512 MB = 1,600 GB-s.
    usage.lambda.sync = {
      invocations: 100,
      seconds: 100 * pacedRunSeconds({ requests: 30, intervalSeconds: 1, workSeconds: 2 }),
      memoryMb: 512,
      arch: 'arm64',
    };
    usage.dynamodb = {
      readUnits: 2_000_000,
      writeUnits: 1_000_000,
      storageGb: 1,
      indexStorageGb: 0,
      pitr: true,
    };
    usage.upstash.commands = 50_000;
    const prices = roundPrices({
      lambdaGbSecondArm: 0.00001,
      lambdaGbSecondX86: 99, // not used: the function is arm64
      lambdaRequest: 0.0000002,
      dynamoReadUnit: 0.0000002,
      dynamoWriteUnit: 0.000001,
      dynamoStorageGbMonth: 0.3,
      dynamoPitrGbMonth: 0.2,
      upstashCommand: 0.000002,
      upstashFixedMonth: 10,
    });
    const cost = priceUsage(usage, prices, 0.5);
    // USD: 1,600 × 0.00001 = 0.016; 100 × 0.0000002 = 0.00002; 2e6 × 2e-7 = 0.4; 1e6 × 1e-6 = 1;
    // storage 0.3; PITR 0.2; Upstash 50,000 × 0.000002 = 0.1 → 2.01602 USD → 1.00801 EUR.
    expect(cost.services.lambda?.items['sync GB-s']?.quantity).toBe(1600);
    expect(cost.services.lambda?.eur).toBeCloseTo(0.00801, 10);
    expect(cost.services.dynamodb?.eur).toBeCloseTo(0.95, 10);
    expect(cost.services.upstash?.eur).toBeCloseTo(0.05, 10);
    expect(cost.eurPerMonth).toBeCloseTo(1.00801, 10);
    // Without PITR the backup line is not billed.
    usage.dynamodb.pitr = false;
    expect(priceUsage(usage, prices, 0.5).eurPerMonth).toBeCloseTo(0.90801, 10);
  });

  it('bills global index copies as storage, and PITR on the table alone', () => {
    // prepare: 2 GB of table items, 1 GB of their copies in global indexes, PITR on.
    const usage = emptyUsage();
    usage.dynamodb = { readUnits: 0, writeUnits: 0, storageGb: 2, indexStorageGb: 1, pitr: true };
    const prices = roundPrices({ dynamoStorageGbMonth: 0.3, dynamoPitrGbMonth: 0.2 });
    // act
    const dynamodb = priceUsage(usage, prices, 1).services.dynamodb;
    // assess: storage 2 × 0.3 + 1 × 0.3 = 0.9; PITR 2 × 0.2 = 0.4 (not 3 × 0.2).
    expect(dynamodb?.items['storage GB-month']?.eur).toBeCloseTo(0.6, 10);
    expect(dynamodb?.items['index storage GB-month']?.eur).toBeCloseTo(0.3, 10);
    expect(dynamodb?.items['PITR GB-month']?.quantity).toBe(2);
    expect(dynamodb?.eur).toBeCloseTo(1.3, 10);
  });

  it('bills Upstash pay-as-you-go until the fixed plan is cheaper', () => {
    const usage = emptyUsage();
    const prices = roundPrices({ upstashCommand: 0.000002, upstashFixedMonth: 10 });
    // 4M commands × 0.000002 = 8 USD < 10: pay-as-you-go, 4 EUR at 0.5.
    usage.upstash.commands = 4_000_000;
    expect(priceUsage(usage, prices, 0.5).services.upstash?.items.commands?.eur).toBeCloseTo(4, 10);
    // 10M × 0.000002 = 20 USD > 10: the fixed plan, 5 EUR.
    usage.upstash.commands = 10_000_000;
    const fixed = priceUsage(usage, prices, 0.5).services.upstash;
    expect(fixed?.items['fixed plan']?.eur).toBe(5);
    expect(fixed?.items.commands).toBeUndefined();
  });

  it('issue 25 point 4: bills the API’s WAF (web ACL, rule, per request) only when it is on', () => {
    const usage = emptyUsage();
    const prices = roundPrices({ wafWebAclMonth: 5, wafRuleMonth: 1, wafRequest: 0.000001 });
    expect(priceUsage(usage, prices, 1).services.waf).toBeUndefined();
    expect(priceUsage(usage, prices, 1).eurPerMonth).toBe(0);
    // 1 ACL × 5 + 1 rule × 1 + 2,000,000 requests × 0.000001 = 8 USD → 4 EUR at 0.5.
    usage.waf = { webAcls: 1, rules: 1, requests: 2_000_000 };
    const waf = priceUsage(usage, prices, 0.5).services.waf;
    expect(waf?.items['web ACLs']?.eur).toBe(2.5);
    expect(waf?.items.rules?.eur).toBe(0.5);
    expect(waf?.items.requests?.eur).toBeCloseTo(1, 10);
    expect(waf?.eur).toBeCloseTo(4, 10);
  });

  it('issue 25 point 4: the API’s flood ceiling per hour is its bound busy all hour (GB-s and requests)', () => {
    const prices = roundPrices({ lambdaGbSecondArm: 0.00001, lambdaRequest: 0.000001 });
    // 10 instances × 3,600 s × 0.5 GB = 18,000 GB-s × 0.00001 = 0.18; 36,000 s ÷ 0.1 s = 360,000
    // invocations × 0.000001 = 0.36 → 0.54 USD → 0.27 EUR at 0.5.
    expect(
      apiFloodCeilingEurPerHour(
        { instances: 10, memoryMb: 512, invocationSeconds: 0.1, arch: 'arm64' },
        prices,
        0.5,
      ),
    ).toBeCloseTo(0.27, 10);
  });

  it('bills an x86 function at the x86 price', () => {
    const usage = emptyUsage();
    usage.lambda.planner = { invocations: 0, seconds: 1024, memoryMb: 1024, arch: 'x86_64' };
    const prices = roundPrices({ lambdaGbSecondArm: 1, lambdaGbSecondX86: 2 });
    expect(priceUsage(usage, prices, 1).eurPerMonth).toBe(2048);
  });

  it('keeps every price with its source page and the date it was read', () => {
    for (const [name, p] of Object.entries(PRICES)) {
      expect(p.usd, name).toBeGreaterThan(0);
      expect(p.source, name).toMatch(/pricing|Pricing/);
      expect(p.source, name).toMatch(/as known on \d{4}-\d{2}-\d{2}, to be re-checked/);
    }
  });

  it('issue 28: a request takes max(interval, the council’s answer), answers uniform between stated bounds', () => {
    // answers always slower than the interval: their mean
    expect(expectedRequestSeconds(1, { minSeconds: 1, maxSeconds: 3 })).toBe(2);
    // always faster: the interval
    expect(expectedRequestSeconds(2, { minSeconds: 0.3, maxSeconds: 1.5 })).toBe(2);
    // straddling: E[max(1, U(0, 2))] = (1·1 + (4 − 1)/2) / 2 = 1.25
    expect(expectedRequestSeconds(1, { minSeconds: 0, maxSeconds: 2 })).toBe(1.25);
    expect(
      pacedRunSeconds({
        requests: 10,
        intervalSeconds: 1,
        workSeconds: 1,
        latency: { minSeconds: 1, maxSeconds: 3 },
      }),
    ).toBe(21);
  });

  it('issue 28: bills Glacier Instant Retrieval storage, GETs, retrieval and transitions, and change feed events', () => {
    const usage = emptyUsage();
    usage.s3.glacierIr = { storageGb: 100, getRequests: 1000, retrievalGb: 10, transitions: 2000 };
    usage.events = { published: 3 };
    const prices = roundPrices({
      s3GlacierIrStorageGbMonth: 1,
      s3GlacierIrGetRequest: 2,
      s3GlacierIrRetrievalGb: 3,
      s3TransitionToGlacierIr: 4,
      eventBridgeEvent: 5,
    });
    const cost = priceUsage(usage, prices, 1);
    expect(cost.services.s3?.eur).toBe(100 + 2000 + 30 + 8000);
    expect(cost.services.eventbridge?.eur).toBe(15);
    expect(cost.eurPerMonth).toBe(10_145);
  });

  it('issue 28: the VM comparison adds its parts from the price table, with the files on disk or in S3', () => {
    const prices = roundPrices({
      smallVmMonth: 10,
      ebsGp3GbMonth: 1,
      ebsSnapshotGbMonth: 2,
      publicIpv4Month: 3,
      dataOutGb: 4,
      s3StorageGbMonth: 0.5,
    });
    const vm = vmComparison({ filesGb: 100, databaseGb: 10, snapshotGb: 15, egressGb: 2 }, prices, 1);
    expect(vm.filesOnDisk).toEqual({
      't4g.small': 10,
      snapshots: 30,
      'public IPv4': 3,
      egress: 8,
      'gp3 disk': 110,
      total: 161,
    });
    expect(vm.filesInS3.total).toBe(10 + 30 + 3 + 8 + 10 + 50);
  });

  it('issue 28: the ingest’s own transfer is billed apart from portal serving, at the internet rate', () => {
    const usage = emptyUsage();
    usage.dataTransfer = { internetOutGb: 10, cloudFrontOutGb: 0, cloudFrontRequests: 0, ingestOutGb: 4 };
    const cost = priceUsage(usage, roundPrices({ dataOutGb: 0.1 }), 1);
    expect(cost.services.dataTransfer?.eur).toBeCloseTo(1, 9);
    expect(cost.services.ingestTransfer?.items['GB out to the councils']?.eur).toBeCloseTo(0.4, 9);
    expect(cost.eurPerMonth).toBeCloseTo(1.4, 9);
  });

  it('issue 28: metric series are the products of each metric’s dimension values', () => {
    const count = {
      customMetrics: { Requests: ['Outcome'], SyncRuns: ['Kind', 'Outcome'], StoreOutages: [] },
    } as unknown as StackCount;
    expect(metricSeries(count, { Outcome: 6, Kind: 3 })).toBe(6 + 18 + 1);
  });

  describe('issue 28 (metric-hours): a series is billed for the hours it gets data', () => {
    // The stack's four alarmed metrics; SlotStoreFallback by Switch (entered, retry-failed, left).
    const stack = {
      customMetrics: {
        [METRICS.longestPauseHours]: [],
        [METRICS.storeOutages]: [],
        [METRICS.slotStoreFallback]: ['Switch'],
        [METRICS.saturatedHosts]: [],
      },
    };
    const at = (sources: number, everyHour: Set<string>) =>
      metricHoursOf(stack, {
        valuesPerKey: { Switch: 3 },
        everyHour,
        incidentHoursPerMonth: 4,
        pausedTooLongHoursPer1000: 48,
        sources,
      });

    it('the month has 730.5 hours (365.25 days ÷ 12 × 24)', () => {
      expect(HOURS_IN_MONTH).toBe(730.5);
    });

    it('bills series × hours with data ÷ hours in the month, by hand', () => {
      const rows = at(1_000, new Set([METRICS.saturatedHosts]));
      expect(Object.fromEntries(rows.map((r) => [r.metric, [r.series, r.hoursWithData]]))).toEqual({
        [METRICS.longestPauseHours]: [1, 48],
        [METRICS.storeOutages]: [1, 4],
        [METRICS.slotStoreFallback]: [3, 4],
        [METRICS.saturatedHosts]: [1, 730.5],
      });
      // 1 full series + (48 + 4 + 3 × 4) ÷ 730.5 = 1 + 64 ÷ 730.5.
      const months = metricMonths(rows);
      expect(months).toBeCloseTo(1.087611225, 8);
      const usage = emptyUsage();
      usage.metrics.series = months;
      // At $0.30 a metric-month and 1 € = 1 $: 0.3 × 1.087611 = €0.326283 (six full months were €1.80).
      expect(priceUsage(usage, roundPrices({ metricMonth: 0.3 }), 1).eurPerMonth).toBeCloseTo(0.326283368, 8);
    });

    it('the pause hours grow with the fleet but stop at the month: the cost per 1,000 sources does not rise', () => {
      const months = (n: number) => metricMonths(at(n, new Set([METRICS.saturatedHosts])));
      // 10,000 sources: 480 h; 100,000: 4,800 h capped at 730.5 (one full series).
      expect(months(10_000)).toBeCloseTo(1 + (480 + 16) / 730.5, 9);
      expect(months(100_000)).toBeCloseTo(2 + 16 / 730.5, 9);
      expect(months(10_000) / 10).toBeLessThan(months(1_000));
      expect(months(100_000) / 100).toBeLessThan(months(10_000) / 10);
    });

    it('a gauge written every tick or every 15 minutes has data every hour', () => {
      const rows = at(1_000, new Set([METRICS.saturatedHosts, METRICS.longestPauseHours]));
      expect(rows.find((r) => r.metric === METRICS.longestPauseHours)?.hoursWithData).toBe(730.5);
      expect(metricMonths(rows)).toBeCloseTo(2 + 16 / 730.5, 9);
    });

    it('from the planner’s own metric code: an ordinary hour writes no datapoint, the pause gauge only past a day', () => {
      // 6 h in a backoff: before issue 28's metric-hours change the pause gauge was a datapoint too.
      // A saturated host is lawful (RATE-9): SaturatedHosts is a log line since no alarm reads it, and
      // StarvedSources is a datapoint only while a source starves (none in an ordinary hour).
      expect(plannerDatapointsOfAnOrdinaryHour(6)).toEqual(new Set());
      expect(plannerDatapointsOfAnOrdinaryHour(30)).toEqual(new Set([METRICS.longestPauseHours]));
    });
  });
});
