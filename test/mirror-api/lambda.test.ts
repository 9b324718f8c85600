import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMirrorApiLambda } from '../../shared/mirror-api';
import { API_BASE_HEADER } from '../../shared/mirror-api/constants';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { getJson, type ServedMirror, seedServedMirror } from '../support/mirror-api';

/**
 * The API's Lambda adapter (functions/mirror-api.ts behind CloudFront, issue 16): Function URL events
 * in, the same answers as `ingestor serve` out, with ids under the public base CloudFront names.
 */
let bed: AwsTestbed;
let m: ServedMirror;

beforeAll(async () => {
  bed = await startAwsTestbed();
  m = await seedServedMirror(bed, 'lambda');
}, 120_000);
afterAll(async () => {
  await m?.close();
  await bed?.stop();
});

describe('mirror API as a Lambda behind CloudFront', () => {
  const lambda = () =>
    createMirrorApiLambda(bed.clients, {
      bucket: bed.env.BUCKET,
      tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
    });
  const event = (path: string, query = '', headers: Record<string, string> = {}) => ({
    rawPath: path,
    rawQueryString: query,
    headers,
    requestContext: { domainName: 'abc.lambda-url.eu-central-1.on.aws', http: { method: 'GET' } },
  });

  it('ids and links use the base CloudFront names in its header, the same objects as the node server serves', async () => {
    const api = lambda();
    const base = 'https://d111.cloudfront.net';
    const res = await api.handle(event('/oparl/v1/body', 'limit=20', { [API_BASE_HEADER]: base }));
    expect(res.status).toBe(200);
    const page = JSON.parse(res.body) as { data: Record<string, unknown>[]; links: { first: string } };
    expect(page.links.first.startsWith(`${base}/oparl/v1/body`)).toBe(true);
    const served = await getJson(`${m.base}/oparl/v1/body?limit=20`);
    const strip = (v: unknown) => JSON.stringify(v).replaceAll(base, 'B').replaceAll(m.base, 'B');
    expect(strip(page.data)).toBe(strip(served.json.data));
  });

  it('without the header (called not through CloudFront) the Function URL host; If-None-Match answers 304', async () => {
    const api = lambda();
    const first = await api.handle(event('/oparl/v1/system'));
    expect(JSON.parse(first.body).id).toBe('https://abc.lambda-url.eu-central-1.on.aws/oparl/v1/system');
    const again = await api.handle(
      event('/oparl/v1/system', '', { 'if-none-match': first.headers.etag ?? '' }),
    );
    expect(again.status).toBe(304);
  });
});
