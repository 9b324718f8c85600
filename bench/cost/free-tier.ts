import type { CostBreakdown } from './model';
import { PRICES_READ_ON } from './prices';

/**
 * AWS's always-free monthly allowances (issue 28), kept apart from the list prices (bench/cost/prices.ts):
 * they are per account, so an account that runs anything else shares them — the bill is printed at list
 * price first, and beside it (never inside it) what the same month costs "if this account runs nothing
 * else". Only the allowances that never expire are here; the 12-month offers (S3's 5 GB, …) and the
 * credits of accounts opened after 2025-07-15 are not.
 *
 * Each allowance matches priced items of the model (service, item name) and is pooled across them —
 * Lambda's 400,000 GB-s across every function, the 100 GB of internet egress across the portal's
 * serving and the ingest's own requests. Where the pooled items have different unit prices the
 * allowance is spent on the cheapest first: AWS does not say in which order, and that order gives the
 * smaller credit (the free-tier total is not flattered).
 */
export interface FreeAllowance {
  /** What is free, a month, in the unit of the matched items. */
  quantity: number;
  what: string;
  /** The priced items it covers: service and item name (a RegExp for families such as `<fn> GB-s`). */
  items: { service: string; item: string | RegExp }[];
  /** The public page that states it. */
  source: string;
}

const READ = PRICES_READ_ON;

/** Hours in the model's month (365.25 / 12 days): a capacity unit held all month is this many unit-hours. */
const HOURS_PER_MONTH = (365.25 / 12) * 24;

export const ALWAYS_FREE = {
  lambdaGbSeconds: {
    quantity: 400_000,
    what: 'Lambda compute, GB-seconds (all functions, both architectures)',
    items: [{ service: 'lambda', item: / GB-s$/ }],
    source: `AWS Lambda pricing (aws.amazon.com/lambda/pricing): "The free tier includes one million requests and 400,000 GB-seconds per month"; AWS Free Tier (aws.amazon.com/free), Always Free, ${READ}`,
  },
  lambdaRequests: {
    quantity: 1_000_000,
    what: 'Lambda requests',
    items: [{ service: 'lambda', item: / invocations$/ }],
    source: `AWS Lambda pricing (aws.amazon.com/lambda/pricing), free tier one million requests a month, ${READ}`,
  },
  internetOutGb: {
    quantity: 100,
    what: 'data transfer out to the internet, GB (aggregated across services and regions)',
    items: [
      { service: 'dataTransfer', item: 'GB out to the internet' },
      { service: 'ingestTransfer', item: 'GB out to the councils' },
    ],
    source: `AWS Global Network FAQs / Amazon EC2 pricing, data transfer (aws.amazon.com/ec2/pricing/on-demand): "100 GB of data transfer out to the internet free each month, aggregated across all AWS services and Regions (except China and GovCloud)" (since 2021-12-01), ${READ}`,
  },
  cloudFrontOutGb: {
    quantity: 1_000,
    what: 'CloudFront data transfer out, GB (1 TB)',
    items: [{ service: 'dataTransfer', item: 'CloudFront GB out' }],
    source: `Amazon CloudFront pricing (aws.amazon.com/cloudfront/pricing), pay-as-you-go, always free: 1 TB data transfer out a month, ${READ}`,
  },
  cloudFrontRequests: {
    quantity: 10_000_000,
    what: 'CloudFront HTTP/HTTPS requests',
    items: [{ service: 'dataTransfer', item: 'CloudFront requests' }],
    source: `Amazon CloudFront pricing (aws.amazon.com/cloudfront/pricing), always free: 10,000,000 HTTP or HTTPS requests a month, ${READ}`,
  },
  sqsRequests: {
    quantity: 1_000_000,
    what: 'SQS requests',
    items: [{ service: 'sqs', item: 'requests' }],
    source: `Amazon SQS pricing (aws.amazon.com/sqs/pricing), free tier: the first 1 million requests a month, ${READ}`,
  },
  cloudWatchMetrics: {
    quantity: 10,
    what: 'CloudWatch custom metrics',
    items: [{ service: 'cloudwatchMetrics', item: 'metric series' }],
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), free tier: 10 metrics (custom or detailed monitoring), ${READ}`,
  },
  cloudWatchAlarms: {
    quantity: 10,
    what: 'CloudWatch alarm metrics (standard resolution)',
    items: [{ service: 'cloudwatchMetrics', item: 'alarms' }],
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), free tier: "10 Alarm metrics (only applicable to Standard resolution alarms …)", ${READ}`,
  },
  cloudWatchDashboards: {
    quantity: 3,
    what: 'CloudWatch dashboards (up to 50 metrics each)',
    items: [{ service: 'cloudwatchMetrics', item: 'dashboards' }],
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), free tier: "3 Dashboards for up to 50 metrics per month", ${READ}`,
  },
  cloudWatchLogsGb: {
    quantity: 5,
    what: 'CloudWatch Logs, GB (ingestion and archive storage together)',
    items: [
      { service: 'cloudwatchLogs', item: 'GB ingested' },
      { service: 'cloudwatchLogs', item: 'GB-month stored' },
    ],
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), free tier: "5 GB Data (ingestion, archive storage, and data scanned by Logs Insights queries)", ${READ}`,
  },
  dynamoStorageGb: {
    quantity: 25,
    what: 'DynamoDB table storage, GB-month',
    items: [
      { service: 'dynamodb', item: 'storage GB-month' },
      { service: 'dynamodb', item: 'index storage GB-month' },
    ],
    source: `Amazon DynamoDB pricing (aws.amazon.com/dynamodb/pricing): free tier 25 GB of data storage a month; does not expire, ${READ}`,
  },
  /**
   * Issue 28: 25 WCU and 25 RCU of provisioned capacity, all month — unit-hours of tables in provisioned
   * mode (bench/cost/dynamo-capacity.ts), pooled across tables and indexes; on-demand request units get
   * nothing of it.
   */
  dynamoProvisionedWcu: {
    quantity: 25 * HOURS_PER_MONTH,
    what: 'DynamoDB provisioned write capacity, WCU-hours (25 WCU all month)',
    items: [{ service: 'dynamodb', item: 'provisioned WCU-hours' }],
    source: `Amazon DynamoDB pricing (aws.amazon.com/dynamodb/pricing/provisioned), AWS Free Tier: "25 WCUs and 25 RCUs of provisioned capacity", always free, provisioned mode only; ${READ}`,
  },
  dynamoProvisionedRcu: {
    quantity: 25 * HOURS_PER_MONTH,
    what: 'DynamoDB provisioned read capacity, RCU-hours (25 RCU all month)',
    items: [{ service: 'dynamodb', item: 'provisioned RCU-hours' }],
    source: `Amazon DynamoDB pricing (aws.amazon.com/dynamodb/pricing/provisioned), AWS Free Tier: "25 WCUs and 25 RCUs of provisioned capacity", always free, provisioned mode only; ${READ}`,
  },
  schedulerInvocations: {
    quantity: 14_000_000,
    what: 'EventBridge Scheduler invocations',
    items: [{ service: 'eventbridgeScheduler', item: 'invocations' }],
    source: `Amazon EventBridge pricing (aws.amazon.com/eventbridge/pricing), Scheduler: 14 million invocations a month free, ${READ}`,
  },
} as const satisfies Record<string, FreeAllowance>;

/** One allowance as applied to a month: how much of it the month used, and what that was worth. */
export interface AppliedAllowance {
  allowance: number;
  used: number;
  free: number;
  eur: number;
}

export interface FreeTierResult {
  /** The list-price total (the bill as printed first). */
  listEurPerMonth: number;
  /** What the allowances take off the list price (≥ 0). */
  freeTierEur: number;
  /** The list price less the allowances: "if this account runs nothing else". */
  eurPerMonth: number;
  byAllowance: Record<string, AppliedAllowance>;
}

const matches = (pattern: string | RegExp, item: string) =>
  typeof pattern === 'string' ? pattern === item : pattern.test(item);

/**
 * The always-free allowances applied to a priced month (pure): each allowance takes the first
 * `quantity` units of its items, cheapest first, off the bill; a month using less than the allowance
 * is free in that line, a month using more pays the rest at list price.
 */
export function applyFreeTier(
  cost: CostBreakdown,
  allowances: Record<string, FreeAllowance> = ALWAYS_FREE,
): FreeTierResult {
  const byAllowance: Record<string, AppliedAllowance> = {};
  for (const [name, a] of Object.entries(allowances)) {
    const lines = a.items
      .flatMap(({ service, item }) =>
        Object.entries(cost.services[service]?.items ?? {}).filter(
          // Issue 28: a function with provisioned concurrency gets no free tier (PricedItem.noFreeTier).
          ([label, priced]) => matches(item, label) && priced.noFreeTier !== true,
        ),
      )
      .map(([, priced]) => priced)
      .sort((x, y) => x.eurPerUnit - y.eurPerUnit);
    let left = a.quantity;
    let eur = 0;
    for (const line of lines) {
      const free = Math.min(left, line.quantity);
      eur += free * line.eurPerUnit;
      left -= free;
    }
    const used = lines.reduce((sum, l) => sum + l.quantity, 0);
    byAllowance[name] = { allowance: a.quantity, used, free: a.quantity - left, eur };
  }
  const freeTierEur = Object.values(byAllowance).reduce((sum, a) => sum + a.eur, 0);
  return {
    listEurPerMonth: cost.eurPerMonth,
    freeTierEur,
    eurPerMonth: cost.eurPerMonth - freeTierEur,
    byAllowance,
  };
}

/**
 * The VM comparison's share of the same allowance (issue 28: the comparison stays fair): a VM's egress
 * to the internet is free up to the 100 GB a month every account has. Nothing else of the VM's bill
 * (the instance, its disk, snapshots, IPv4) has an always-free allowance.
 */
export function vmFreeEgressGb(egressGb: number): number {
  return Math.min(egressGb, ALWAYS_FREE.internetOutGb.quantity);
}
