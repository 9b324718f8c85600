import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server speaking CloudFront's REST-XML protocol for one operation, CreateInvalidation
 * (`POST /2020-05-31/distribution/{Id}/invalidation`, 201 with the Invalidation), so the CLI's real SDK
 * client sends invalidations without AWS. `refuse` answers 403 AccessDenied as CloudFront does for a
 * caller without `cloudfront:CreateInvalidation`. Point a client at it with its `endpoint` (or
 * `AWS_ENDPOINT_URL_CLOUDFRONT`).
 */
export interface FakeCloudFront {
  url: string;
  /** Every invalidation received, in order. */
  invalidations: { distributionId: string; callerReference: string; quantity: number; paths: string[] }[];
  refuse: boolean;
  close(): Promise<void>;
}

function xml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function unxml(value: string): string {
  return value.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');
}

export async function startFakeCloudFront(): Promise<FakeCloudFront> {
  const fake: Omit<FakeCloudFront, 'url' | 'close'> = { invalidations: [], refuse: false };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      res.setHeader('content-type', 'text/xml');
      const m = /^\/2020-05-31\/distribution\/([^/]+)\/invalidation$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) {
        res.statusCode = 404;
        res.end(
          '<ErrorResponse><Error><Type>Sender</Type><Code>NotFound</Code><Message>unsupported</Message></Error></ErrorResponse>',
        );
        return;
      }
      if (fake.refuse) {
        res.statusCode = 403;
        res.end(
          '<ErrorResponse xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not authorized to perform: cloudfront:CreateInvalidation</Message></Error><RequestId>r-1</RequestId></ErrorResponse>',
        );
        return;
      }
      const paths = [...raw.matchAll(/<Path>([^<]*)<\/Path>/g)].map((p) => unxml(p[1] ?? ''));
      const callerReference = unxml(/<CallerReference>([^<]*)<\/CallerReference>/.exec(raw)?.[1] ?? '');
      const quantity = Number(/<Quantity>(\d+)<\/Quantity>/.exec(raw)?.[1] ?? Number.NaN);
      const distributionId = decodeURIComponent(m[1] ?? '');
      fake.invalidations.push({ distributionId, callerReference, quantity, paths });
      const id = `I${fake.invalidations.length}`;
      res.statusCode = 201;
      res.setHeader(
        'location',
        `https://cloudfront.amazonaws.com/2020-05-31/distribution/${distributionId}/invalidation/${id}`,
      );
      res.end(
        `<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>${id}</Id><Status>InProgress</Status><CreateTime>2026-12-02T08:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>${paths.length}</Quantity><Items>${paths.map((p) => `<Path>${xml(p)}</Path>`).join('')}</Items></Paths><CallerReference>${xml(callerReference)}</CallerReference></InvalidationBatch></Invalidation>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
