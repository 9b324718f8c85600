import {
  CLOUDFRONT_FLAT_RATE_PLANS,
  PRICES,
  type PriceName,
  UPSTASH_FIXED_PLANS,
  UPSTASH_PAYG_FREE_BANDWIDTH_GB,
  USD_TO_EUR,
} from './prices';

/**
 * The cost model's arithmetic, pure: monthly quantities in, a priced breakdown out. The bench
 * (bench/cost.ts) measures and simulates the quantities; this file only multiplies, so a small case can
 * be checked by hand (test/cost/model.test.ts).
 */

/** Days per month ÷ days per week: a simulated week × this = a month (365.25 / 12 / 7). */
export const WEEKS_PER_MONTH = 365.25 / 12 / 7;

/**
 * Billed seconds of a paced run. Lambda bills wall-clock time, and a polite run waits its host's
 * interval before every request (RATE-1): `requests × interval` — divided by the hosts the run works at
 * once, whose waits overlap — plus the work itself (parsing, DynamoDB, S3).
 */
export function pacedRunSeconds(run: {
  requests: number;
  intervalSeconds: number;
  workSeconds: number;
  /** Hosts worked concurrently in one invocation (their waits overlap); default 1. */
  hostsInParallel?: number;
  /** The council's answer time per request (issue 28); default none (the interval alone). */
  latency?: Latency;
}): number {
  const perRequest = run.latency
    ? expectedRequestSeconds(run.intervalSeconds, run.latency)
    : run.intervalSeconds;
  return (run.requests * perRequest) / (run.hostsInParallel ?? 1) + run.workSeconds;
}

/** A council's answer time, uniform between the bounds (seconds). */
export interface Latency {
  minSeconds: number;
  maxSeconds: number;
}

/**
 * Wall time of one request of a sequential run: slots are reserved start to start (RATE-1), and the
 * run asks for the next one only after the answer, so a request takes max(interval, answer).
 * For an answer uniform on [a, b]: E[max(i, L)] — i when i ≥ b, the mean (a + b) / 2 when i ≤ a, else
 * (i·(i − a) + (b² − i²) / 2) / (b − a).
 */
export function expectedRequestSeconds(intervalSeconds: number, latency: Latency): number {
  const { minSeconds: a, maxSeconds: b } = latency;
  const i = intervalSeconds;
  if (b <= a) return Math.max(i, a);
  if (i >= b) return i;
  if (i <= a) return (a + b) / 2;
  return (i * (i - a) + (b * b - i * i) / 2) / (b - a);
}

/** Lambda gives a function one full vCPU at this much memory, and CPU in proportion below it. */
export const MB_PER_VCPU = 1769;

/**
 * How much longer CPU work takes at `memoryMb` than on one full core (where the bench measures it):
 * below 1,769 MB a function gets that share of a vCPU. Waits do not stretch, work does — so a
 * wait-bound function is cheapest at the least memory that fits it, a CPU-bound one is not.
 */
export function cpuSlowdown(memoryMb: number): number {
  return Math.max(1, MB_PER_VCPU / memoryMb);
}

/** Lambda bills memory × duration: GB-seconds (1 GB = 1024 MB). */
export function gbSeconds(seconds: number, memoryMb: number): number {
  return (seconds * memoryMb) / 1024;
}

export interface FunctionUsage {
  invocations: number;
  /** Billed seconds in all. */
  seconds: number;
  memoryMb: number;
  arch: 'arm64' | 'x86_64';
  /**
   * Issue 28: instances kept on provisioned concurrency (bench/cost/provisioned.ts), arm64: the GB-s
   * configured over the month, and how many of `seconds` ran on them (the rest spilled over on-demand).
   */
  provisioned?: { instances: number; gbSeconds: number; secondsOnProvisioned: number };
}

/** Monthly quantities per service. */
export interface MonthlyUsage {
  lambda: Record<string, FunctionUsage>;
  sqs: { requests: number };
  dynamodb: {
    readUnits: number;
    writeUnits: number;
    /** The tables' own items (what PITR backs up). */
    storageGb: number;
    /** The items' copies in global secondary indexes: billed as storage, not backed up by PITR. */
    indexStorageGb: number;
    pitr: boolean;
    /**
     * Issue 28: unit-hours of the tables in provisioned mode (bench/cost/dynamo-capacity.ts); their
     * units are then not in `readUnits`/`writeUnits` (those are the on-demand tables' alone).
     */
    provisioned?: { wcuHours: number; rcuHours: number };
    /**
     * Issue 28: the mirror's object items and their `byList` copies in a table of their own (shared/store
     * tables.ts MIRROR_TABLE): Standard-IA, no PITR. Its units and bytes are not in the lines above.
     */
    mirrorTable?: { readUnits: number; writeUnits: number; storageGb: number; indexStorageGb: number };
  };
  s3: {
    putRequests: number;
    getRequests: number;
    storageGb: number;
    /** Issue 28: file copies in Glacier Instant Retrieval (infra lifecycle rule), when the lever is on. */
    glacierIr?: { storageGb: number; getRequests: number; retrievalGb: number; transitions: number };
  };
  /** Issue 28: the change feed's events on the event bus. */
  events?: { published: number };
  logs: { ingestedGb: number; storedGb: number };
  /**
   * `series`: billed metric-months — each custom metric series × its hours with data ÷ the month's hours
   * (issue 28, bench/cost/metric-hours.ts); a series written every hour counts 1.
   */
  metrics: { series: number; alarms: number; dashboards: number };
  scheduler: { invocations: number };
  /** Issue 28: the month's commands, and their bytes on the wire against a plan's bandwidth. */
  upstash: { commands: number; bandwidthGb?: number };
  secrets: { secrets: number; apiCalls: number };
  /**
   * Portal serving: what visitors fetch (preview files from S3, the mirror API through CloudFront) —
   * the VM comparison's egress is the same bytes. `ingestOutGb` (issue 28): what the ingest itself sends
   * out to the internet — its requests to the councils (their answers come in, and inbound is free).
   */
  dataTransfer: {
    internetOutGb: number;
    cloudFrontOutGb: number;
    cloudFrontRequests: number;
    ingestOutGb?: number;
    /**
     * Issue 28 (what-if): the distribution on the cheapest CloudFront flat-rate plan whose allowance
     * covers its month, when that is cheaper than pay-as-you-go (`cloudFrontPlanOf`).
     */
    cloudFrontFlatRate?: boolean;
  };
  /**
   * Issue 25 point 4: the API's rate-based WAF rule, only when deployed (`-c apiWaf=true`): web ACLs,
   * rules, and the requests it inspects (every request to the API's distribution).
   */
  waf?: { webAcls: number; rules: number; requests: number };
}

export interface PricedItem {
  quantity: number;
  unit: string;
  eurPerUnit: number;
  eur: number;
  /**
   * Issue 28: no always-free allowance applies ("The Lambda free tier does not apply to functions that
   * have Provisioned Concurrency enabled", aws.amazon.com/lambda/pricing): every item of such a function.
   */
  noFreeTier?: true;
}

export interface PricedService {
  items: Record<string, PricedItem>;
  eur: number;
}

export interface CostBreakdown {
  eurPerMonth: number;
  services: Record<string, PricedService>;
}

export type PriceTable = Record<PriceName, { usd: number; per: string }>;

/**
 * Issue 28: the Upstash plan a month's commands and bandwidth are billed on — the smallest fixed plan
 * that carries the bandwidth when it is cheaper than pay-as-you-go (commands, and bandwidth beyond its
 * free share), else pay-as-you-go (`plan` undefined). Pure.
 */
export function upstashPlanOf(
  upstash: MonthlyUsage['upstash'],
  prices: PriceTable = PRICES,
): { plan?: (typeof UPSTASH_FIXED_PLANS)[number]; payAsYouGoUsd: number; paidBandwidthGb: number } {
  const bandwidthGb = upstash.bandwidthGb ?? 0;
  const paidBandwidthGb = Math.max(0, bandwidthGb - UPSTASH_PAYG_FREE_BANDWIDTH_GB);
  const payAsYouGoUsd =
    upstash.commands * prices.upstashCommand.usd + paidBandwidthGb * prices.upstashPaygBandwidthGb.usd;
  const plan = UPSTASH_FIXED_PLANS.find((p) => p.bandwidthGb >= bandwidthGb);
  return plan && prices[plan.price].usd < payAsYouGoUsd
    ? { plan, payAsYouGoUsd, paidBandwidthGb }
    : { payAsYouGoUsd, paidBandwidthGb };
}

/**
 * Issue 28: the CloudFront plan a month is billed on — the cheapest flat-rate plan whose requests and
 * data allowances cover it, when it is cheaper than pay-as-you-go (`plan` undefined otherwise; also when
 * no plan covers the month: above an allowance AWS may throttle, so it is not billed as covered). Pure.
 */
export function cloudFrontPlanOf(
  dataTransfer: Pick<MonthlyUsage['dataTransfer'], 'cloudFrontOutGb' | 'cloudFrontRequests'>,
  prices: PriceTable = PRICES,
): { plan?: (typeof CLOUDFRONT_FLAT_RATE_PLANS)[number]; payAsYouGoUsd: number } {
  const payAsYouGoUsd =
    dataTransfer.cloudFrontOutGb * prices.cloudFrontOutGb.usd +
    dataTransfer.cloudFrontRequests * prices.cloudFrontHttpsRequest.usd;
  const plan = CLOUDFRONT_FLAT_RATE_PLANS.find(
    (p) => p.requests >= dataTransfer.cloudFrontRequests && p.dataGb >= dataTransfer.cloudFrontOutGb,
  );
  return plan && prices[plan.price].usd < payAsYouGoUsd ? { plan, payAsYouGoUsd } : { payAsYouGoUsd };
}

/** Prices `usage` with `prices` (USD) at `usdToEur`. */
export function priceUsage(
  usage: MonthlyUsage,
  prices: PriceTable = PRICES,
  usdToEur: number = USD_TO_EUR,
): CostBreakdown {
  const services: Record<string, PricedService> = {};
  const add = (service: string, item: string, quantity: number, price: PriceName, noFreeTier = false) => {
    const eurPerUnit = prices[price].usd * usdToEur;
    const s = services[service] ?? { items: {}, eur: 0 };
    s.items[item] = {
      quantity,
      unit: prices[price].per,
      eurPerUnit,
      eur: quantity * eurPerUnit,
      ...(noFreeTier ? { noFreeTier: true as const } : {}),
    };
    s.eur += quantity * eurPerUnit;
    services[service] = s;
  };
  for (const [name, fn] of Object.entries(usage.lambda)) {
    // Issue 28: a function with provisioned instances bills them, what runs on them at their duration
    // price, the spill-over on-demand — and has no free tier (PricedItem.noFreeTier).
    const pc = fn.provisioned !== undefined && fn.provisioned.instances > 0 ? fn.provisioned : undefined;
    add(
      'lambda',
      `${name} GB-s`,
      gbSeconds(fn.seconds - (pc?.secondsOnProvisioned ?? 0), fn.memoryMb),
      fn.arch === 'arm64' ? 'lambdaGbSecondArm' : 'lambdaGbSecondX86',
      pc !== undefined,
    );
    if (pc) {
      add(
        'lambda',
        `${name} provisioned concurrency GB-s`,
        pc.gbSeconds,
        'lambdaProvisionedConcurrencyGbSecondArm',
        true,
      );
      add(
        'lambda',
        `${name} provisioned duration GB-s`,
        gbSeconds(pc.secondsOnProvisioned, fn.memoryMb),
        'lambdaProvisionedDurationGbSecondArm',
        true,
      );
    }
    add('lambda', `${name} invocations`, fn.invocations, 'lambdaRequest', pc !== undefined);
  }
  add('sqs', 'requests', usage.sqs.requests, 'sqsRequest');
  add('dynamodb', 'read request units', usage.dynamodb.readUnits, 'dynamoReadUnit');
  add('dynamodb', 'write request units', usage.dynamodb.writeUnits, 'dynamoWriteUnit');
  add('dynamodb', 'storage GB-month', usage.dynamodb.storageGb, 'dynamoStorageGbMonth');
  add('dynamodb', 'index storage GB-month', usage.dynamodb.indexStorageGb, 'dynamoStorageGbMonth');
  // Continuous backups are billed on the table's size (its data and local secondary indexes); a global
  // index is rebuilt from the table on restore, so its copies are not in the backup.
  if (usage.dynamodb.pitr) add('dynamodb', 'PITR GB-month', usage.dynamodb.storageGb, 'dynamoPitrGbMonth');
  if (usage.dynamodb.provisioned) {
    add('dynamodb', 'provisioned WCU-hours', usage.dynamodb.provisioned.wcuHours, 'dynamoWcuHour');
    add('dynamodb', 'provisioned RCU-hours', usage.dynamodb.provisioned.rcuHours, 'dynamoRcuHour');
  }
  // Issue 28: the Mirror table, Standard-IA (not in the free tier's 25 GB: that is Standard's), no PITR.
  const mirror = usage.dynamodb.mirrorTable;
  if (mirror) {
    add('dynamodb', 'mirror table read request units (IA)', mirror.readUnits, 'dynamoIaReadUnit');
    add('dynamodb', 'mirror table write request units (IA)', mirror.writeUnits, 'dynamoIaWriteUnit');
    add('dynamodb', 'mirror table storage GB-month (IA)', mirror.storageGb, 'dynamoIaStorageGbMonth');
    add(
      'dynamodb',
      'mirror table index storage GB-month (IA)',
      mirror.indexStorageGb,
      'dynamoIaStorageGbMonth',
    );
  }
  add('s3', 'PUT/LIST requests', usage.s3.putRequests, 's3PutRequest');
  add('s3', 'GET/HEAD requests', usage.s3.getRequests, 's3GetRequest');
  add('s3', 'storage GB-month', usage.s3.storageGb, 's3StorageGbMonth');
  if (usage.s3.glacierIr) {
    const g = usage.s3.glacierIr;
    add('s3', 'Glacier IR storage GB-month', g.storageGb, 's3GlacierIrStorageGbMonth');
    add('s3', 'Glacier IR GET requests', g.getRequests, 's3GlacierIrGetRequest');
    add('s3', 'Glacier IR GB retrieved', g.retrievalGb, 's3GlacierIrRetrievalGb');
    add('s3', 'transitions to Glacier IR', g.transitions, 's3TransitionToGlacierIr');
  }
  if (usage.events) add('eventbridge', 'change feed events', usage.events.published, 'eventBridgeEvent');
  add('cloudwatchLogs', 'GB ingested', usage.logs.ingestedGb, 'logsIngestGb');
  add('cloudwatchLogs', 'GB-month stored', usage.logs.storedGb, 'logsStorageGbMonth');
  add('cloudwatchMetrics', 'metric series', usage.metrics.series, 'metricMonth');
  add('cloudwatchMetrics', 'alarms', usage.metrics.alarms, 'alarmMonth');
  add('cloudwatchMetrics', 'dashboards', usage.metrics.dashboards, 'dashboardMonth');
  add('eventbridgeScheduler', 'invocations', usage.scheduler.invocations, 'schedulerInvocation');
  // Upstash (issue 28): pay-as-you-go per command and bandwidth, or the smallest fixed plan whose
  // bandwidth carries the month — whichever is cheaper.
  const upstash = upstashPlanOf(usage.upstash, prices);
  if (upstash.plan) add('upstash', 'fixed plan', 1, upstash.plan.price);
  else {
    add('upstash', 'commands', usage.upstash.commands, 'upstashCommand');
    if (upstash.paidBandwidthGb > 0)
      add('upstash', 'bandwidth GB', upstash.paidBandwidthGb, 'upstashPaygBandwidthGb');
  }
  add('secretsManager', 'secrets', usage.secrets.secrets, 'secretMonth');
  add('secretsManager', 'API calls', usage.secrets.apiCalls, 'secretApiCall');
  add('dataTransfer', 'GB out to the internet', usage.dataTransfer.internetOutGb, 'dataOutGb');
  const cloudFrontPlan = usage.dataTransfer.cloudFrontFlatRate
    ? cloudFrontPlanOf(usage.dataTransfer, prices).plan
    : undefined;
  if (cloudFrontPlan) add('dataTransfer', `CloudFront ${cloudFrontPlan.name} plan`, 1, cloudFrontPlan.price);
  else {
    add('dataTransfer', 'CloudFront GB out', usage.dataTransfer.cloudFrontOutGb, 'cloudFrontOutGb');
    add(
      'dataTransfer',
      'CloudFront requests',
      usage.dataTransfer.cloudFrontRequests,
      'cloudFrontHttpsRequest',
    );
  }
  if (usage.dataTransfer.ingestOutGb !== undefined)
    add('ingestTransfer', 'GB out to the councils', usage.dataTransfer.ingestOutGb, 'dataOutGb');
  if (usage.waf) {
    add('waf', 'web ACLs', usage.waf.webAcls, 'wafWebAclMonth');
    add('waf', 'rules', usage.waf.rules, 'wafRuleMonth');
    add('waf', 'requests', usage.waf.requests, 'wafRequest');
  }
  const eurPerMonth = Object.values(services).reduce((sum, s) => sum + s.eur, 0);
  return { eurPerMonth, services };
}

/** DynamoDB on-demand write units of one write: 1 per started KB of the item (at least 1). */
export function writeUnits(itemBytes: number): number {
  return Math.max(1, Math.ceil(itemBytes / 1024));
}

/**
 * Read units of one read: 1 per started 4 KB read (Query/Scan: of all items returned together), half
 * for an eventually consistent read; a read that returns nothing still costs its minimum.
 */
export function readUnits(bytes: number, consistent: boolean): number {
  const units = Math.max(1, Math.ceil(bytes / 4096));
  return consistent ? units : units / 2;
}

/**
 * Issue 25 point 4: the most an anonymous flood can cost per hour through the API function at its
 * concurrency bound — every instance busy all hour, each invocation `invocationSeconds` long — in
 * Lambda GB-seconds and requests (EUR). The bound is what makes this a ceiling: without reserved
 * concurrency a flood's bill grows with the account's whole pool. The reads it makes (DynamoDB, S3) are
 * the bench's (`npm run bench -- api-flood`): zero for refused or cached junk.
 */
export function apiFloodCeilingEurPerHour(
  bound: { instances: number; memoryMb: number; invocationSeconds: number; arch: 'arm64' | 'x86_64' },
  prices: PriceTable = PRICES,
  usdToEur: number = USD_TO_EUR,
): number {
  const seconds = bound.instances * 3600;
  const gbs = gbSeconds(seconds, bound.memoryMb);
  const invocations = seconds / bound.invocationSeconds;
  const gbPrice = bound.arch === 'arm64' ? prices.lambdaGbSecondArm : prices.lambdaGbSecondX86;
  return (gbs * gbPrice.usd + invocations * prices.lambdaRequest.usd) * usdToEur;
}

/**
 * The same job on one always-on VM (issue 28, the honest comparison): a t4g.small, its gp3 disk for the
 * files and the database, snapshots of the database, a public IPv4 address and the preview's egress —
 * or with the files in S3 Standard instead of on the disk. Prices from prices.ts, in EUR a month.
 * `freeEgressGb`: the egress the account's always-free allowance covers (bench/cost/free-tier.ts), the
 * same allowance the serverless bill gets — returned apart (`freeTier`), never inside the totals.
 */
export function vmComparison(
  input: { filesGb: number; databaseGb: number; snapshotGb: number; egressGb: number; freeEgressGb?: number },
  prices: PriceTable = PRICES,
  usdToEur: number = USD_TO_EUR,
): {
  filesOnDisk: Record<string, number>;
  filesInS3: Record<string, number>;
  freeTier: { egressGb: number; eur: number };
} {
  const eur = (usd: number) => usd * usdToEur;
  const common = {
    't4g.small': eur(prices.smallVmMonth.usd),
    snapshots: eur(input.snapshotGb * prices.ebsSnapshotGbMonth.usd),
    'public IPv4': eur(prices.publicIpv4Month.usd),
    egress: eur(input.egressGb * prices.dataOutGb.usd),
  };
  const withTotal = (parts: Record<string, number>) => ({
    ...parts,
    total: Object.values(parts).reduce((sum, x) => sum + x, 0),
  });
  return {
    filesOnDisk: withTotal({
      ...common,
      'gp3 disk': eur((input.filesGb + input.databaseGb) * prices.ebsGp3GbMonth.usd),
    }),
    filesInS3: withTotal({
      ...common,
      'gp3 disk': eur(input.databaseGb * prices.ebsGp3GbMonth.usd),
      'S3 Standard (files)': eur(input.filesGb * prices.s3StorageGbMonth.usd),
    }),
    freeTier: {
      egressGb: input.freeEgressGb ?? 0,
      eur: eur(Math.min(input.freeEgressGb ?? 0, input.egressGb) * prices.dataOutGb.usd),
    },
  };
}

/** A month with nothing in it: a base for a partial bill (e.g. the one-off onboarding). */
export function emptyUsage(): MonthlyUsage {
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
