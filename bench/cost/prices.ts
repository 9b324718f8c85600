/**
 * List prices the cost model bills with: eu-central-1 (Frankfurt), on-demand, in USD, free tiers
 * not in them (they shrink with every other workload in the account, so the bill does not count on
 * them). The always-free allowances are in bench/cost/free-tier.ts, each with its page (Lambda, data
 * transfer, CloudFront, SQS, CloudWatch, DynamoDB storage, Scheduler), and are billed as a line of
 * their own beside the list-price total (issue 28).
 *
 * Every price is "as known on 2026-12-01, to be re-checked": this file was written without web access,
 * from the public pricing pages named in `source`. Re-read each page before quoting a figure; when a
 * price changes, change it here only (the model, the bench and its test read nothing else).
 */
export interface Price {
  usd: number;
  /** What one `usd` buys. */
  per: string;
  /** The public page the price is from. */
  source: string;
}

const READ = 'as known on 2026-12-01, to be re-checked';

export const PRICES_READ_ON = READ;

/** USD → EUR, as known on 2026-12-01 (ECB reference rate, rounded), to be re-checked. */
export const USD_TO_EUR = 0.86;

export const PRICES = {
  lambdaGbSecondArm: {
    usd: 0.0000133334,
    per: 'GB-second, arm64',
    source: `AWS Lambda pricing (aws.amazon.com/lambda/pricing), eu-central-1, ${READ}`,
  },
  lambdaGbSecondX86: {
    usd: 0.0000166667,
    per: 'GB-second, x86_64',
    source: `AWS Lambda pricing (aws.amazon.com/lambda/pricing), eu-central-1, ${READ}`,
  },
  /**
   * Issue 28 (sync on provisioned concurrency): an instance kept initialised bills this for every second
   * it is configured (rounded up to 5 minutes), used or not; what runs on it bills
   * `lambdaProvisionedDurationGbSecondArm` instead of `lambdaGbSecondArm`; what spills over the
   * configured count bills on-demand. The stored copies of the pricing page (read 2026-12-03 with the
   * search tool) render the per-region table client-side: the figures here are US East's (the page's
   * worked examples, Arm); eu-central-1's on-demand Arm and x86 rates above equal US East's (the region
   * is in the page's base tier, as artillery's prices.js lists it), and its provisioned rates are taken
   * to be too — the first price to re-check on the live page.
   */
  lambdaProvisionedConcurrencyGbSecondArm: {
    usd: 0.0000033334,
    per: 'GB-second of provisioned concurrency configured, arm64',
    source: `AWS Lambda pricing (aws.amazon.com/lambda/pricing), "Provisioned Concurrency Pricing": "You pay for the amount of concurrency you configure, and for the period of time you configure it … rounded up to the nearest five minutes"; US East Arm rate, eu-central-1 assumed equal, ${READ}`,
  },
  lambdaProvisionedDurationGbSecondArm: {
    usd: 0.0000077778,
    per: 'GB-second of duration on provisioned concurrency, arm64',
    source: `AWS Lambda pricing (aws.amazon.com/lambda/pricing), "Provisioned Concurrency Pricing": "When Provisioned Concurrency is enabled and executed for your function, you also pay for Requests and Duration based on the prices below. If your function exceeds the configured concurrency, you will be billed for excess function execution at the rate outlined in the AWS Lambda Pricing section above"; US East Arm rate, eu-central-1 assumed equal, ${READ}`,
  },
  lambdaRequest: {
    usd: 0.2 / 1e6,
    per: 'invocation',
    source: `AWS Lambda pricing (aws.amazon.com/lambda/pricing), $0.20 per 1M requests, ${READ}`,
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    per: 'request (64 KB chunk), standard queue',
    source: `Amazon SQS pricing (aws.amazon.com/sqs/pricing), eu-central-1, $0.40 per 1M, ${READ}`,
  },
  dynamoWriteUnit: {
    usd: 0.7625 / 1e6,
    per: 'write request unit, on-demand, Standard table class',
    source: `Amazon DynamoDB on-demand pricing (aws.amazon.com/dynamodb/pricing/on-demand), eu-central-1, ${READ}`,
  },
  dynamoReadUnit: {
    usd: 0.1525 / 1e6,
    per: 'read request unit, on-demand, Standard table class',
    source: `Amazon DynamoDB on-demand pricing (aws.amazon.com/dynamodb/pricing/on-demand), eu-central-1, ${READ}`,
  },
  /**
   * Issue 28: provisioned capacity (with auto scaling), billed per unit-hour of what is provisioned,
   * used or not — eu-central-1 is 1.22 × us-east-1's $0.00065 / $0.00013, the same ratio as its
   * on-demand units above. Decided per table by bench/cost/dynamo-capacity.ts.
   */
  dynamoWcuHour: {
    usd: 0.000793,
    per: 'write capacity unit-hour, provisioned, Standard table class',
    source: `Amazon DynamoDB provisioned pricing (aws.amazon.com/dynamodb/pricing/provisioned), eu-central-1, $0.000793 per WCU-hour, ${READ}`,
  },
  dynamoRcuHour: {
    usd: 0.0001586,
    per: 'read capacity unit-hour, provisioned, Standard table class',
    source: `Amazon DynamoDB provisioned pricing (aws.amazon.com/dynamodb/pricing/provisioned), eu-central-1, $0.0001586 per RCU-hour, ${READ}`,
  },
  dynamoStorageGbMonth: {
    usd: 0.306,
    per: 'GB-month of table storage',
    source: `Amazon DynamoDB on-demand pricing (aws.amazon.com/dynamodb/pricing/on-demand), eu-central-1, ${READ}`,
  },
  // Issue 28: the Mirror table's class, Standard-Infrequent Access (aws.amazon.com/dynamodb/pricing/on-demand,
  // table classes): storage at 40 % of Standard's, request units at 125 %.
  dynamoIaStorageGbMonth: {
    usd: 0.1224,
    per: 'GB-month of table storage, Standard-IA table class',
    source: `Amazon DynamoDB on-demand pricing (aws.amazon.com/dynamodb/pricing/on-demand), eu-central-1, Standard-IA, ${READ}`,
  },
  dynamoIaReadUnit: {
    usd: 0.190625 / 1e6,
    per: 'read request unit, on-demand, Standard-IA table class',
    source: `Amazon DynamoDB on-demand pricing (aws.amazon.com/dynamodb/pricing/on-demand), eu-central-1, Standard-IA, ${READ}`,
  },
  dynamoIaWriteUnit: {
    usd: 0.953125 / 1e6,
    per: 'write request unit, on-demand, Standard-IA table class',
    source: `Amazon DynamoDB on-demand pricing (aws.amazon.com/dynamodb/pricing/on-demand), eu-central-1, Standard-IA, ${READ}`,
  },
  dynamoPitrGbMonth: {
    usd: 0.2448,
    per: 'GB-month of continuous backup (PITR)',
    source: `Amazon DynamoDB on-demand pricing (aws.amazon.com/dynamodb/pricing/on-demand), eu-central-1, ${READ}`,
  },
  s3StorageGbMonth: {
    usd: 0.0245,
    per: 'GB-month, S3 Standard, first 50 TB',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), eu-central-1, ${READ}`,
  },
  s3PutRequest: {
    usd: 0.0054 / 1000,
    per: 'PUT, COPY, POST or LIST request, S3 Standard',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), eu-central-1, $0.0054 per 1,000, ${READ}`,
  },
  s3GetRequest: {
    usd: 0.00043 / 1000,
    per: 'GET, HEAD or other request, S3 Standard',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), eu-central-1, $0.00043 per 1,000, ${READ}`,
  },
  logsIngestGb: {
    usd: 0.63,
    per: 'GB ingested, CloudWatch Logs Standard',
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), eu-central-1, ${READ}`,
  },
  logsStorageGbMonth: {
    usd: 0.0324,
    per: 'GB-month archived (compressed)',
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), eu-central-1, ${READ}`,
  },
  metricMonth: {
    usd: 0.3,
    per: 'custom metric (one name + dimension set) per month, first 10,000',
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), eu-central-1, ${READ}`,
  },
  alarmMonth: {
    usd: 0.1,
    per: 'standard-resolution alarm metric per month',
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), eu-central-1, ${READ}`,
  },
  dashboardMonth: {
    usd: 3,
    per: 'dashboard per month',
    source: `Amazon CloudWatch pricing (aws.amazon.com/cloudwatch/pricing), ${READ}`,
  },
  schedulerInvocation: {
    usd: 1 / 1e6,
    per: 'EventBridge Scheduler invocation',
    source: `Amazon EventBridge pricing (aws.amazon.com/eventbridge/pricing), Scheduler, $1.00 per 1M, ${READ}`,
  },
  secretMonth: {
    usd: 0.4,
    per: 'secret per month',
    source: `AWS Secrets Manager pricing (aws.amazon.com/secrets-manager/pricing), ${READ}`,
  },
  secretApiCall: {
    usd: 0.05 / 10_000,
    per: 'Secrets Manager API call',
    source: `AWS Secrets Manager pricing (aws.amazon.com/secrets-manager/pricing), $0.05 per 10,000, ${READ}`,
  },
  upstashCommand: {
    usd: 0.2 / 100_000,
    per: 'Redis command, pay-as-you-go',
    source: `Upstash Redis pricing (upstash.com/pricing/redis; upstash.com/docs/redis/overall/billing), pay as you go, $0.20 per 100K commands, ${READ}`,
  },
  /**
   * Upstash's fixed plans (issue 28): a flat price, commands not billed (bounded by 10,000 commands a
   * second — the fleet's ≈ 20/s at 1,000 sources, ≈ 2,000/s at 100,000, stays below), each with a
   * monthly bandwidth (`UPSTASH_FIXED_PLANS`). The model bills the cheapest of pay-as-you-go and the
   * smallest fixed plan whose bandwidth carries the month's traffic.
   */
  upstashFixedMonth: {
    usd: 10,
    per: 'month of the Fixed 250 MB plan (commands not billed, 50 GB bandwidth)',
    source: `Upstash Redis pricing (upstash.com/pricing/redis; upstash.com/docs/redis/overall/billing), Fixed 250MB $10/month; the same figure in pricing captures dated 2026-09-20 and 2026-11-09; ${READ}`,
  },
  upstashFixed1GbMonth: {
    usd: 20,
    per: 'month of the Fixed 1 GB plan (commands not billed, 100 GB bandwidth)',
    source: `Upstash Redis pricing (upstash.com/pricing/redis), as transcribed 2026-09-20 in api-evangelist/upstash plans/upstash-plans-pricing.yml: Fixed 1GB $20/month, 1 GB, 100 GB bandwidth; ${READ}`,
  },
  upstashFixed5GbMonth: {
    usd: 100,
    per: 'month of the Fixed 5 GB plan (commands not billed, 500 GB bandwidth)',
    source: `Upstash Redis pricing (upstash.com/pricing/redis), as transcribed 2026-09-20 in api-evangelist/upstash plans/upstash-plans-pricing.yml: Fixed 5GB $100/month, 5 GB, 500 GB bandwidth; ${READ}`,
  },
  upstashFixed10GbMonth: {
    usd: 200,
    per: 'month of the Fixed 10 GB plan (commands not billed, 1 TB bandwidth)',
    source: `Upstash Redis pricing (upstash.com/pricing/redis), as transcribed 2026-09-20 in api-evangelist/upstash plans/upstash-plans-pricing.yml: Fixed 10GB $200/month, 10 GB, 1 TB bandwidth; ${READ}`,
  },
  upstashFixed50GbMonth: {
    usd: 400,
    per: 'month of the Fixed 50 GB plan (commands not billed, 5 TB bandwidth)',
    source: `Upstash Redis pricing (upstash.com/pricing/redis), as transcribed 2026-09-20 in api-evangelist/upstash plans/upstash-plans-pricing.yml: Fixed 50GB $400/month, 50 GB, 5 TB bandwidth; ${READ}`,
  },
  upstashFixed100GbMonth: {
    usd: 800,
    per: 'month of the Fixed 100 GB plan (commands not billed, 10 TB bandwidth)',
    source: `Upstash Redis pricing (upstash.com/pricing/redis), as transcribed 2026-09-20 in api-evangelist/upstash plans/upstash-plans-pricing.yml: Fixed 100GB $800/month, 100 GB, 10 TB bandwidth; ${READ}`,
  },
  upstashPaygBandwidthGb: {
    usd: 0.03,
    per: 'GB of Upstash bandwidth beyond 200 GB a month, pay-as-you-go',
    source: `Upstash Redis pricing (upstash.com/pricing/redis), as transcribed 2026-09-20 in api-evangelist/upstash plans/upstash-plans-pricing.yml: Pay as You Go, bandwidth free up to 200 GB/month, then $0.03/GB; ${READ}`,
  },
  dataOutGb: {
    usd: 0.09,
    per: 'GB out to the internet (first 10 TB); inbound is free',
    source: `Amazon EC2 on-demand pricing, data transfer (aws.amazon.com/ec2/pricing/on-demand), eu-central-1, ${READ}`,
  },
  cloudFrontOutGb: {
    usd: 0.085,
    per: 'GB out to viewers in Europe',
    source: `Amazon CloudFront pricing (aws.amazon.com/cloudfront/pricing), Europe, ${READ}`,
  },
  cloudFrontHttpsRequest: {
    usd: 0.012 / 10_000,
    per: 'HTTPS request, Europe',
    source: `Amazon CloudFront pricing (aws.amazon.com/cloudfront/pricing), $0.012 per 10,000, ${READ}`,
  },
  // Issue 28: CloudFront's flat-rate plans (bench/cost/model.ts cloudFrontPlanOf) — a what-if lever.
  cloudFrontProPlanMonth: {
    usd: 15,
    per: 'month of the CloudFront Pro flat-rate plan (10 M requests, 50 TB)',
    source: `Amazon CloudFront pricing (aws.amazon.com/cloudfront/pricing), flat-rate plans (since 2025-11-18, one distribution each, no overage charges), allowances from the CloudFront Developer Guide's flat-rate-pricing-plan page, as transcribed 2026-09-05 in api-evangelist/cloudfront plans/cloudfront-plans-pricing.yml: Pro $15/month, 10,000,000 requests, 50 TB; ${READ}`,
  },
  cloudFrontBusinessPlanMonth: {
    usd: 200,
    per: 'month of the CloudFront Business flat-rate plan (125 M requests, 50 TB)',
    source: `Amazon CloudFront pricing (aws.amazon.com/cloudfront/pricing), flat-rate plans (since 2025-11-18, one distribution each, no overage charges), allowances from the CloudFront Developer Guide's flat-rate-pricing-plan page, as transcribed 2026-09-05 in api-evangelist/cloudfront plans/cloudfront-plans-pricing.yml: Business $200/month, 125,000,000 requests, 50 TB; ${READ}`,
  },
  cloudFrontPremiumPlanMonth: {
    usd: 1_000,
    per: 'month of the CloudFront Premium flat-rate plan (500 M requests, 50 TB)',
    source: `Amazon CloudFront pricing (aws.amazon.com/cloudfront/pricing), flat-rate plans (since 2025-11-18, one distribution each, no overage charges), allowances from the CloudFront Developer Guide's flat-rate-pricing-plan page, as transcribed 2026-09-05 in api-evangelist/cloudfront plans/cloudfront-plans-pricing.yml: Premium $1,000/month at its first usage level, 500,000,000 requests, 50 TB (levels up to $10,000: 6 B requests, 600 TB); ${READ}`,
  },
  /** Issue 25 point 4: the API's optional rate-based WAF rule (`-c apiWaf=true`): one web ACL, one rule. */
  wafWebAclMonth: {
    usd: 5,
    per: 'month of one AWS WAF web ACL',
    source: `AWS WAF pricing (aws.amazon.com/waf/pricing), web ACL $5.00 per month (prorated hourly), ${READ}`,
  },
  wafRuleMonth: {
    usd: 1,
    per: 'month of one AWS WAF rule',
    source: `AWS WAF pricing (aws.amazon.com/waf/pricing), rule $1.00 per month (prorated hourly), ${READ}`,
  },
  wafRequest: {
    usd: 0.6 / 1_000_000,
    per: 'request inspected by AWS WAF',
    source: `AWS WAF pricing (aws.amazon.com/waf/pricing), $0.60 per 1 million requests, ${READ}`,
  },
  /** The comparison the issue asks for: mandari's own ingestor on one small always-on VM. */
  smallVmMonth: {
    usd: 0.0192 * 730,
    per: 'month of one t4g.small (2 vCPU, 2 GiB) on demand, 730 h',
    source: `Amazon EC2 on-demand pricing (aws.amazon.com/ec2/pricing/on-demand), eu-central-1, t4g.small $0.0192/h, ${READ}`,
  },
  // Issue 28 — storage classes, the change feed, and the VM comparison's parts.
  s3GlacierIrStorageGbMonth: {
    usd: 0.005,
    per: 'GB-month, S3 Glacier Instant Retrieval',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), eu-central-1, ${READ}`,
  },
  s3GlacierIrGetRequest: {
    usd: 0.01 / 1000,
    per: 'GET request, S3 Glacier Instant Retrieval',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), eu-central-1, $0.01 per 1,000, ${READ}`,
  },
  s3GlacierIrRetrievalGb: {
    usd: 0.03,
    per: 'GB retrieved, S3 Glacier Instant Retrieval',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), eu-central-1, ${READ}`,
  },
  s3TransitionToGlacierIr: {
    usd: 0.02 / 1000,
    per: 'lifecycle transition request into S3 Glacier Instant Retrieval',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), lifecycle transitions, $0.02 per 1,000, ${READ}`,
  },
  // Issue 28 (s3-files): the storage-class alternatives the bench weighs and does not build
  // (bench/cost/file-class-choice.ts) — direct Glacier IR at PUT, Intelligent-Tiering.
  s3GlacierIrPutRequest: {
    usd: 0.02 / 1000,
    per: 'PUT, COPY, POST or LIST request, S3 Glacier Instant Retrieval',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), requests, Glacier Instant Retrieval $0.02 per 1,000 (the transition row's price; the stored page's regional cells are unrendered, so not verified for eu-central-1), ${READ}`,
  },
  s3IntelligentTieringMonitoring: {
    usd: 0.0025 / 1000,
    per: 'object of at least 128 KB monitored a month, S3 Intelligent-Tiering',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), monitoring and automation $0.0025 per 1,000 objects (objects under 128 KB neither monitored nor tiered), ${READ}`,
  },
  s3IntelligentTieringInfrequentGbMonth: {
    usd: 0.0135,
    per: 'GB-month, S3 Intelligent-Tiering Infrequent Access tier (30 days without access)',
    source: `Amazon S3 pricing (aws.amazon.com/s3/pricing), eu-central-1, as S3 Standard-IA; the Frequent tier is Standard's price, the Archive Instant tier Glacier IR's, ${READ}`,
  },
  eventBridgeEvent: {
    usd: 1 / 1e6,
    per: 'custom event published to an event bus',
    source: `Amazon EventBridge pricing (aws.amazon.com/eventbridge/pricing), $1.00 per 1M, ${READ}`,
  },
  ebsGp3GbMonth: {
    usd: 0.0952,
    per: 'GB-month of EBS gp3 (baseline 3,000 IOPS, 125 MB/s included)',
    source: `Amazon EBS pricing (aws.amazon.com/ebs/pricing), eu-central-1, ${READ}`,
  },
  ebsSnapshotGbMonth: {
    usd: 0.054,
    per: 'GB-month of EBS snapshot (standard tier)',
    source: `Amazon EBS pricing (aws.amazon.com/ebs/pricing), eu-central-1, ${READ}`,
  },
  publicIpv4Month: {
    usd: 0.005 * 730,
    per: 'month of one public IPv4 address, 730 h',
    source: `Amazon VPC pricing (aws.amazon.com/vpc/pricing), public IPv4 $0.005/h, ${READ}`,
  },
} as const satisfies Record<string, Price>;

export type PriceName = keyof typeof PRICES;

/** Issue 28: Upstash's fixed plans by monthly bandwidth (GB), cheapest first — the pages of `upstashFixed*`. */
export const UPSTASH_FIXED_PLANS: readonly { price: PriceName; name: string; bandwidthGb: number }[] = [
  { price: 'upstashFixedMonth', name: 'Fixed 250 MB', bandwidthGb: 50 },
  { price: 'upstashFixed1GbMonth', name: 'Fixed 1 GB', bandwidthGb: 100 },
  { price: 'upstashFixed5GbMonth', name: 'Fixed 5 GB', bandwidthGb: 500 },
  { price: 'upstashFixed10GbMonth', name: 'Fixed 10 GB', bandwidthGb: 1_000 },
  { price: 'upstashFixed50GbMonth', name: 'Fixed 50 GB', bandwidthGb: 5_000 },
  { price: 'upstashFixed100GbMonth', name: 'Fixed 100 GB', bandwidthGb: 10_000 },
];

/** The Fixed 250 MB plan's monthly bandwidth (GB), the smallest fixed plan's. */
export const UPSTASH_FIXED_BANDWIDTH_GB = 50;

/** Pay-as-you-go's monthly bandwidth without charge (GB); beyond, `upstashPaygBandwidthGb`. */
export const UPSTASH_PAYG_FREE_BANDWIDTH_GB = 200;

/**
 * Issue 28: CloudFront's flat-rate plans by allowance, cheapest first. A plan covers one distribution
 * (the preview's, which serves the API too); above its allowance AWS charges nothing more but may
 * throttle or ask for a larger plan — so the bill only takes a plan whose allowance covers the month.
 * The Free plan ($0: 1 M requests, 100 GB) is left out: 1,000 sources ask ≈ 3 M requests a month, and a
 * price of $0 is no price (every price here is > 0).
 */
export const CLOUDFRONT_FLAT_RATE_PLANS: readonly {
  price: PriceName;
  name: string;
  requests: number;
  dataGb: number;
}[] = [
  { price: 'cloudFrontProPlanMonth', name: 'Pro', requests: 10_000_000, dataGb: 50_000 },
  { price: 'cloudFrontBusinessPlanMonth', name: 'Business', requests: 125_000_000, dataGb: 50_000 },
  { price: 'cloudFrontPremiumPlanMonth', name: 'Premium', requests: 500_000_000, dataGb: 50_000 },
];
