import { pathToFileURL } from 'node:url';
import { contentHash } from '../shared/engine';
import { apiIdHash, MirrorStore } from '../shared/mirror';
import { mapLimit } from '../shared/util';
import { startAwsTestbed } from '../test/support/aws';
import { incompressibleText, seedListedBody, serveApi } from '../test/support/mirror-api';

/**
 * `npm run bench -- mirror-api`: the OParl API over a mirror holding one body with 20,000 papers
 * (written straight into the mirror store on the local peers, as the sync writes them), served on
 * loopback. Prints JSON: p50/p95 latency of a list page (100 papers of 2.6 KB, the size of the OParl
 * specification's example: one index Query, the papers inline) and of one object, and per list page
 * the DynamoDB queries, the capacity units the peer reports and the S3 reads. A second body holds
 * 20,000 papers of 6 KB, too large to ride inline (`s3Bodies`): its pages read index entries only, so
 * their read units are the index's own, and each paper from S3. Goal (issue 16): one Query per page, ≤ 2 read units per 100 index entries plus bodies
 * from S3, or small objects inline (≤ 1 MB a page).
 */
export interface MirrorApiBenchResult {
  papers: number;
  listPageMs: { p50: number; p95: number; samples: number };
  objectMs: { p50: number; p95: number; samples: number };
  perListPage: { queries: number; readUnits: number; s3Reads: number; inlineShare: number };
  perObject: { readUnits: number; s3Reads: number };
  pagesWalked: number;
  /** The body whose papers are too large to ride inline: index read units alone, S3 for each object. */
  s3Bodies: {
    listPageMs: { p50: number; p95: number; samples: number };
    perListPage: { queries: number; readUnits: number; s3Reads: number };
  };
}

/**
 * A paper as councils publish it: an embedded main file and two consultations, filled up with keywords
 * to a given JSON size. Typical = the OParl specification's example paper (2.6 KB), which rides inline;
 * large = beyond one read unit with its index item (INLINE_ITEM_MAX_BYTES), so its body stays in S3.
 */
const TYPICAL_PAPER_BYTES = 2_600;
const LARGE_PAPER_BYTES = 6_000;

function benchPaper(id: string, body: string, n: number, modified: string, bytes: number) {
  const origin = body.replace(/\/body\/[^/]+$/, '');
  const paper: Record<string, unknown> = {
    id,
    type: 'https://schema.oparl.org/1.1/Paper',
    body,
    name: `Vorlage ${n}: Antrag der Fraktion zur Sanierung des Schulgebäudes`,
    reference: `VO/2024/${n}`,
    date: '2024-01-01',
    paperType: 'Antrag',
    mainFile: {
      id: `${origin}/file/${n}`,
      type: 'https://schema.oparl.org/1.1/File',
      name: `Vorlage ${n}`,
      fileName: `vorlage-${n}.pdf`,
      mimeType: 'application/pdf',
      size: 184_320,
      accessUrl: `${origin}/files/vorlage-${n}.pdf`,
      modified,
    },
    consultation: [1, 2].map((k) => ({
      id: `${origin}/consultation/${n}-${k}`,
      type: 'https://schema.oparl.org/1.1/Consultation',
      paper: id,
      meeting: `${origin}/meeting/${(n % 200) + k}`,
      organization: [`${origin}/organization/${k}`],
      role: k === 1 ? 'Vorberatung' : 'Entscheidung',
      authoritative: k === 2,
    })),
    keyword: [] as string[],
    modified,
  };
  const keywords = paper.keyword as string[];
  // A large paper's keywords do not pack (issue 28: inline copies are packed): it stays too large to
  // ride inline, so its page reads S3 as the section measures.
  const keyword = (k: number) =>
    bytes > TYPICAL_PAPER_BYTES ? incompressibleText(48, `${id}#${k}`) : `Schlagwort ${k}`;
  while (Buffer.byteLength(JSON.stringify(paper)) < bytes) keywords.push(keyword(keywords.length + 1));
  return paper;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 10) / 10;
}

export async function runMirrorApiBench(
  opts: { papers?: number; pages?: number; objects?: number; log?: (line: string) => void } = {},
): Promise<MirrorApiBenchResult> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const papers = opts.papers ?? 20_000;
  const bed = await startAwsTestbed();
  try {
    const sourceId = 'bench-api';
    const origin = 'https://ris-bench.test/oparl/v1';
    const bodyId = `${origin}/body/1`;
    const largeBodyId = `${origin}/body/2`;
    await seedListedBody(bed, sourceId, bodyId);
    await seedListedBody(bed, sourceId, largeBodyId);
    const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
    const t0 = Date.parse('2024-01-01T00:00:00Z');
    const seed = async (body: string, large: boolean): Promise<string[]> => {
      const ids = Array.from({ length: papers }, (_, i) => `${body}/paper/${i + 1}`);
      let written = 0;
      await mapLimit(ids, 16, async (id, i) => {
        const fetchedAt = new Date(t0 + i * 1000).toISOString();
        const object = benchPaper(
          id,
          body,
          i + 1,
          fetchedAt,
          large ? LARGE_PAPER_BYTES : TYPICAL_PAPER_BYTES,
        );
        await mirror.writeLive({
          sourceId,
          type: 'paper',
          id,
          object,
          sourceUrl: `${body}/paper`,
          fetchedAt,
          hash: contentHash(object),
          bodyId: body,
          modified: fetchedAt,
        });
        written += 1;
        if (written % 5000 === 0) log(`mirror: ${written} papers of ${body} written`);
      });
      return ids;
    };
    const ids = await seed(bodyId, false);
    await seed(largeBodyId, true);
    const api = await serveApi(bed);
    try {
      const walk = async (body: string) => {
        let next: string | undefined =
          `${api.base}/oparl/v1/${sourceId}/body/${apiIdHash(body)}/paper?limit=100`;
        const ms: number[] = [];
        const before = { ...api.reader.consumed };
        let pages = 0;
        while (next !== undefined && pages < (opts.pages ?? 100)) {
          const t = performance.now();
          const res = await fetch(next);
          const page = (await res.json()) as { data: unknown[]; links: { next?: string } };
          ms.push(performance.now() - t);
          if (page.data.length !== 100) throw new Error(`page ${pages + 1} held ${page.data.length} objects`);
          pages += 1;
          next = page.links.next;
        }
        const c = api.reader.consumed;
        return {
          pages,
          listPageMs: { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), samples: ms.length },
          queries: (c.queries - before.queries) / pages,
          readUnits: Math.round(((c.capacityUnits - before.capacityUnits) / pages) * 100) / 100,
          s3Reads: (c.objectReads - before.objectReads) / pages,
        };
      };
      const inline = await walk(bodyId);
      log(`list: ${inline.pages} pages`);
      const large = await walk(largeBodyId);
      log(`list of large papers: ${large.pages} pages`);
      const objectsBefore = { ...api.reader.consumed };
      const objectMs: number[] = [];
      for (let i = 0; i < (opts.objects ?? 200); i += 1) {
        const id = ids[Math.floor((i * 7919) % ids.length)] as string;
        const t = performance.now();
        const res = await fetch(`${api.base}/oparl/v1/${sourceId}/paper/${apiIdHash(id)}`);
        await res.text();
        if (res.status !== 200) throw new Error(`object answered ${res.status}`);
        objectMs.push(performance.now() - t);
      }
      return {
        papers,
        listPageMs: inline.listPageMs,
        objectMs: { p50: quantile(objectMs, 0.5), p95: quantile(objectMs, 0.95), samples: objectMs.length },
        perListPage: {
          queries: inline.queries,
          readUnits: inline.readUnits,
          s3Reads: inline.s3Reads,
          // Of the 100 objects a page shows, those served from the index item without S3.
          inlineShare: Math.round((1 - inline.s3Reads / 100) * 100) / 100,
        },
        perObject: {
          readUnits:
            Math.round(
              ((api.reader.consumed.capacityUnits - objectsBefore.capacityUnits) / objectMs.length) * 100,
            ) / 100,
          s3Reads: (api.reader.consumed.objectReads - objectsBefore.objectReads) / objectMs.length,
        },
        pagesWalked: inline.pages,
        s3Bodies: {
          listPageMs: large.listPageMs,
          perListPage: { queries: large.queries, readUnits: large.readUnits, s3Reads: large.s3Reads },
        },
      };
    } finally {
      await new Promise<void>((resolve) => api.server.close(() => resolve()));
      api.server.closeAllConnections();
    }
  } finally {
    await bed.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runMirrorApiBench()));
}
