import { describe, expect, it } from 'vitest';
import {
  ApiBytesError,
  bytesPerResponse,
  CLOUDFRONT_COMPRESS_MIN_BYTES,
  headerBlockBytes,
  type ResponseSizes,
  servedBytes,
} from '../../bench/cost/api-bytes';
import { ASSUMPTIONS } from '../../bench/cost/assumptions';
import { cloudFrontPlanOf, emptyUsage, type PriceTable, priceUsage } from '../../bench/cost/model';
import { PRICES } from '../../bench/cost/prices';

/** A price table of round numbers, so the expected figures below are computed by hand. */
function roundPrices(set: Partial<Record<keyof PriceTable, number>>): PriceTable {
  const table = {} as PriceTable;
  for (const [name, p] of Object.entries(PRICES)) {
    table[name as keyof PriceTable] = { usd: set[name as keyof PriceTable] ?? 0, per: p.per };
  }
  return table;
}

const page: ResponseSizes = { headerBytes: 400, rawBytes: 60_000, gzipBytes: 10_000, brotliBytes: 9_000 };

describe('issue 28: a mirror API response as CloudFront serves it (bench/cost/api-bytes.ts)', () => {
  it('serves the body compressed in the viewer’s encoding, headers always, raw without Accept-Encoding', () => {
    expect(servedBytes(page, 'br')).toBe(9_400);
    expect(servedBytes(page, 'gzip')).toBe(10_400);
    expect(servedBytes(page, 'identity')).toBe(60_400);
  });

  it('leaves a body under 1,000 B uncompressed whatever the viewer accepts (CloudFront’s lower bound)', () => {
    const small = {
      headerBytes: 400,
      rawBytes: CLOUDFRONT_COMPRESS_MIN_BYTES - 1,
      gzipBytes: 500,
      brotliBytes: 450,
    };
    expect(servedBytes(small, 'br')).toBe(400 + 999);
    expect(servedBytes({ ...small, rawBytes: CLOUDFRONT_COMPRESS_MIN_BYTES }, 'br')).toBe(400 + 450);
  });

  it('weighs a response by the viewers’ shares: 400 + ½ × 9,000 + 0.45 × 10,000 + 0.05 × 60,000', () => {
    expect(bytesPerResponse([page], { brotli: 0.5, gzip: 0.45, none: 0.05 })).toBeCloseTo(12_400, 6);
    // Two kinds of answer, equally likely: the mean of each's figure.
    const object = { headerBytes: 400, rawBytes: 800, gzipBytes: 500, brotliBytes: 450 };
    expect(bytesPerResponse([page, object], { brotli: 1, gzip: 0, none: 0 })).toBe((9_400 + 1_200) / 2);
  });

  it('refuses shares that do not sum to 1, with a code', () => {
    expect(() => bytesPerResponse([page], { brotli: 0.5, gzip: 0.5, none: 0.5 })).toThrow(ApiBytesError);
    try {
      bytesPerResponse([], { brotli: 1, gzip: 0, none: 0 });
    } catch (e) {
      expect((e as ApiBytesError).code).toBe('API_BYTES_SHARES');
    }
  });

  it('counts a header block as HTTP/1.1 text: status line, lines, blank line', () => {
    // "HTTP/1.1 200 OK\r\n" 17 + "a: b\r\n" 6 + "\r\n" 2
    expect(headerBlockBytes('200 OK', [['a', 'b']])).toBe(25);
  });

  it('the model’s measured page: compressible, compressed smaller, billed as the shares say', () => {
    const { listPage, viewerEncodings: v } = ASSUMPTIONS.apiWire;
    expect(listPage.rawBytes).toBeGreaterThanOrEqual(CLOUDFRONT_COMPRESS_MIN_BYTES);
    expect(listPage.brotliBytes).toBeLessThan(listPage.gzipBytes);
    expect(listPage.gzipBytes).toBeLessThan(listPage.rawBytes);
    const byHand =
      listPage.headerBytes +
      v.brotli * listPage.brotliBytes +
      v.gzip * listPage.gzipBytes +
      v.none * listPage.rawBytes;
    expect(bytesPerResponse([listPage], v)).toBeCloseTo(byHand, 6);
  });
});

describe('issue 28: CloudFront flat-rate plans (bench/cost/model.ts cloudFrontPlanOf)', () => {
  // Pay-as-you-go $1 a GB and $1 per 1,000 requests; plans at their list prices ($15, $200, $1,000).
  const prices = roundPrices({
    cloudFrontOutGb: 1,
    cloudFrontHttpsRequest: 1 / 1_000,
    cloudFrontProPlanMonth: 15,
    cloudFrontBusinessPlanMonth: 200,
    cloudFrontPremiumPlanMonth: 1_000,
  });

  it('takes the cheapest plan whose requests and bytes allowances cover the month, if cheaper', () => {
    // 2 M requests and 10 GB → Pro, $15 against $2,000 + $10.
    const pro = cloudFrontPlanOf({ cloudFrontRequests: 2_000_000, cloudFrontOutGb: 10 }, prices);
    expect(pro.plan?.name).toBe('Pro');
    expect(pro.payAsYouGoUsd).toBe(2_010);
    // 20 M requests: over Pro's 10 M → Business; 200 M: Premium.
    expect(cloudFrontPlanOf({ cloudFrontRequests: 20_000_000, cloudFrontOutGb: 10 }, prices).plan?.name).toBe(
      'Business',
    );
    expect(
      cloudFrontPlanOf({ cloudFrontRequests: 200_000_000, cloudFrontOutGb: 10 }, prices).plan?.name,
    ).toBe('Premium');
    // 2 M requests but 60 TB: over every plan's 50 TB → pay-as-you-go.
    expect(
      cloudFrontPlanOf({ cloudFrontRequests: 2_000_000, cloudFrontOutGb: 60_000 }, prices).plan,
    ).toBeUndefined();
  });

  it('stays on pay-as-you-go when it is cheaper, and when no plan covers the month (AWS may throttle)', () => {
    // $5 pay-as-you-go against Pro's $15.
    const cheap = roundPrices({ cloudFrontHttpsRequest: 1e-6, cloudFrontProPlanMonth: 15 });
    expect(
      cloudFrontPlanOf({ cloudFrontRequests: 5_000_000, cloudFrontOutGb: 1 }, cheap).plan,
    ).toBeUndefined();
    expect(
      cloudFrontPlanOf({ cloudFrontRequests: 600_000_000, cloudFrontOutGb: 1 }, prices).plan,
    ).toBeUndefined();
  });

  it('bills the plan instead of the GB and request items when the usage asks for it', () => {
    const usage = emptyUsage();
    usage.dataTransfer = { internetOutGb: 0, cloudFrontOutGb: 10, cloudFrontRequests: 2_000_000 };
    const payg = priceUsage(usage, prices, 1).services.dataTransfer;
    expect(payg?.eur).toBe(2_010);
    usage.dataTransfer.cloudFrontFlatRate = true;
    const plan = priceUsage(usage, prices, 1).services.dataTransfer;
    expect(Object.keys(plan?.items ?? {})).toEqual(['GB out to the internet', 'CloudFront Pro plan']);
    expect(plan?.eur).toBe(15);
  });
});
