import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { LIST_KEYS } from '../demo';
import { LIST_CATALOGUE } from '../shared/engine';
import { PAGE_SIZE_DEFAULT } from '../shared/mirror-api';
import { startAwsTestbed } from '../test/support/aws';
import { oparlExamples } from '../test/support/corpus-dirs';
import { seedServedMirror } from '../test/support/mirror-api';
import {
  bytesPerResponse,
  CLOUDFRONT_ADDED_HEADERS,
  CLOUDFRONT_COMPRESS_MIN_BYTES,
  headerBlockBytes,
  headerLinesBytes,
  meanSizes,
  type ResponseSizes,
} from './cost/api-bytes';
import { ASSUMPTIONS } from './cost/assumptions';

/**
 * `npm run bench -- api-bytes` (issue 28): what a mirror API answer weighs as CloudFront serves it.
 * The demo council in the cost bench's shape (150 objects a list, 5 legislative terms, server pages of
 * 10) is synced by the real engine into the local peers, its body listed (ONB-4), and the real API
 * (node:http on loopback) walked as a client walks it: the system, the body list and the body, every
 * list of the body page by page at the API's default page size, and single objects of every type. Each
 * answer's body is measured raw, gzip'd (node:zlib level 6, zlib's default, and level 1) and Brotli'd
 * (quality 4 and 11) — CloudFront does not document its levels; the bill takes the larger of each pair
 * — and its header block as the origin sends it plus the headers CloudFront adds. Prints JSON.
 */

const GZIP_LEVELS = [1, 6] as const;

/** The list fields of an OParl 1.1 Body (each a URL of a paged list), as the engine knows them. */
const BODY_LIST_FIELDS = LIST_CATALOGUE.map((entry) => entry.bodyField);
const BROTLI_QUALITIES = [4, 11] as const;

interface Measured extends ResponseSizes {
  url: string;
  kind: 'system' | 'bodies' | 'body' | 'listPage' | 'object';
  type?: string;
  /** A list page's objects. */
  objects?: number;
}

function compressedSizes(body: Buffer) {
  const gzip = Object.fromEntries(GZIP_LEVELS.map((level) => [level, gzipSync(body, { level }).length]));
  const brotli = Object.fromEntries(
    BROTLI_QUALITIES.map((q) => [
      q,
      brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: q,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      }).length,
    ]),
  );
  return { gzip, brotli };
}

/**
 * A scale check of the demo's objects: the OParl specification's example objects (../shared corpora,
 * read when present, never committed) measured the same way — single objects, so against `object`.
 */
function specExampleSizes(): Record<
  string,
  { rawBytes: number; gzipBytes: number; brotliBytes: number }
> | null {
  const corpus = oparlExamples();
  if (!corpus.present) return null;
  const dir = `${corpus.dir}/oparl-spec-master`;
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => {
        const body = Buffer.from(JSON.stringify(JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'))));
        const { gzip, brotli } = compressedSizes(body);
        return [
          f.replace(/-01\.json$/, ''),
          {
            rawBytes: body.length,
            gzipBytes: Math.max(...Object.values(gzip)),
            brotliBytes: Math.max(...Object.values(brotli)),
          },
        ];
      }),
  );
}

/** The Accept-Encoding node's own fetch (undici) sends — one common HTTP client, asked on loopback. */
async function nodeFetchAcceptEncoding(): Promise<string> {
  let seen = '';
  const server = createServer((req, res) => {
    seen = String(req.headers['accept-encoding'] ?? '');
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return seen;
}

export async function runApiBytesBench(opts: { log?: (line: string) => void } = {}) {
  const log = opts.log ?? ((line: string) => console.error(line));
  const bed = await startAwsTestbed();
  const objectsPerList = Object.fromEntries(
    LIST_KEYS.map((key) => [key, key === 'legislativeTerm' ? ASSUMPTIONS.legislativeTermsPerBody : 150]),
  );
  const cloudFrontHeaderBytes = headerLinesBytes(Object.entries(CLOUDFRONT_ADDED_HEADERS));
  try {
    log('api-bytes: syncing the demo council (two bodies, 150 objects a list) into the mirror');
    const m = await seedServedMirror(bed, 'api-bytes', { objectsPerList, pageSize: 10 });
    try {
      const measured: Measured[] = [];
      const get = async (url: string, kind: Measured['kind'], type?: string) => {
        // Asked without Accept-Encoding: the API answers identity and CloudFront compresses (as deployed).
        const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200) throw new Error(`HTTP ${res.status} for ${url}`);
        if (res.headers.get('content-encoding')) throw new Error(`the origin compressed ${url} itself`);
        const { gzip, brotli } = compressedSizes(body);
        // The origin's headers as sent, less the hop-by-hop ones CloudFront does not pass on.
        const origin = [...res.headers].filter(([name]) => !['connection', 'keep-alive'].includes(name));
        const sizes = {
          url,
          kind,
          ...(type ? { type } : {}),
          headerBytes: headerBlockBytes(`${res.status} OK`, origin) + cloudFrontHeaderBytes,
          rawBytes: body.length,
          gzipBytes: Math.max(...Object.values(gzip)),
          brotliBytes: Math.max(...Object.values(brotli)),
          byLevel: { gzip, brotli },
        };
        const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        measured.push(kind === 'listPage' ? { ...sizes, objects: (json.data as unknown[]).length } : sizes);
        return json;
      };
      const system = await get(m.systemUrl, 'system');
      const bodies = await get(system.body as string, 'bodies');
      const body = (bodies.data as Record<string, unknown>[])[0];
      if (!body) throw new Error('no listed body');
      await get(body.id as string, 'body');
      const objectIds: { type: string; id: string }[] = [];
      for (const list of BODY_LIST_FIELDS) {
        const field = list;
        if (typeof body[field] !== 'string') continue;
        let next: string | undefined = body[field] as string;
        let pages = 0;
        while (next !== undefined) {
          const page = await get(next, 'listPage', list);
          const data = page.data as Record<string, unknown>[];
          // Two objects of every type: the first and one from the middle of its first page.
          if (pages === 0)
            for (const o of [data[0], data[Math.floor(data.length / 2)]])
              if (o) objectIds.push({ type: list, id: o.id as string });
          pages += 1;
          next = (page.links as { next?: string }).next;
        }
        log(`api-bytes: ${list}: ${pages} pages`);
      }
      for (const { type, id } of objectIds) await get(id, 'object', type);
      const of = (kind: Measured['kind']) => measured.filter((r) => r.kind === kind);
      // Full pages only, as the bill takes a request (a page of the default size); a list's last page
      // may hold a remainder, the 5 legislative terms are one short page.
      const fullPages = of('listPage').filter((r) => r.objects === PAGE_SIZE_DEFAULT);
      const listPage = meanSizes(fullPages);
      const object = meanSizes(of('object'));
      const byType = Object.fromEntries(
        BODY_LIST_FIELDS.map((type) => [
          type,
          {
            listPage: meanSizes(fullPages.filter((r) => r.type === type)),
            object: meanSizes(of('object').filter((r) => r.type === type)),
          },
        ]).filter(([, v]) => (v as { listPage: ResponseSizes }).listPage.rawBytes > 0),
      );
      const viewers = ASSUMPTIONS.apiWire.viewerEncodings;
      return {
        pageSize: PAGE_SIZE_DEFAULT,
        responses: measured.length,
        fullListPages: fullPages.length,
        compression: {
          gzipLevels: GZIP_LEVELS,
          brotliQualities: BROTLI_QUALITIES,
          billed: 'the larger of each pair',
          cloudFrontCompressesFromBytes: CLOUDFRONT_COMPRESS_MIN_BYTES,
        },
        cloudFrontAddedHeaderBytes: cloudFrontHeaderBytes,
        nodeFetchAcceptEncoding: await nodeFetchAcceptEncoding(),
        mean: {
          listPage,
          object,
          system: meanSizes(of('system')),
          bodies: meanSizes(of('bodies')),
          body: meanSizes(of('body')),
        },
        byType,
        specExamples: specExampleSizes(),
        ratios: {
          listPageGzip: round(listPage.gzipBytes / listPage.rawBytes, 3),
          listPageBrotli: round(listPage.brotliBytes / listPage.rawBytes, 3),
          objectGzip: round(object.gzipBytes / object.rawBytes, 3),
          objectBrotli: round(object.brotliBytes / object.rawBytes, 3),
        },
        // What the cost model bills a request (every request a list page, as its read units do).
        servedBytes: {
          viewers,
          listPage: Math.round(bytesPerResponse([listPage], viewers)),
          object: Math.round(bytesPerResponse(of('object'), viewers)),
          listPageAllBrotli: Math.round(bytesPerResponse([listPage], { brotli: 1, gzip: 0, none: 0 })),
          listPageAllGzip: Math.round(bytesPerResponse([listPage], { brotli: 0, gzip: 1, none: 0 })),
          listPageUncompressed: Math.round(bytesPerResponse([listPage], { brotli: 0, gzip: 0, none: 1 })),
        },
      };
    } finally {
      await m.close();
    }
  } finally {
    await bed.stop();
  }
}

const round = (x: number, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runApiBytesBench()));
}
