import { pathToFileURL } from 'node:url';
import { startFakeCouncil } from '../demo';
import { DocumentsStore } from '../shared/documents';
import {
  fileRequests,
  followStored,
  open,
  putBody,
  putSource,
  recordFile,
  startPreviewBed,
} from '../test/support/preview-bed';

/**
 * `npx tsx bench/preview.ts` (or `npm run bench -- preview` once registered in bench/run.ts): the
 * preview endpoint on loopback over real peers (DynamoDB, S3, redis-server behind the Upstash adapter)
 * and the fake council. Prints JSON:
 * - p50/p95 latency of a stored document (the preview's 302 plus the presigned GET S3 serves) and of an unstored one (one polite fetch;
 *   openings spaced by more than the host's 1 s pace, so the numbers are the path, not the pace wait);
 * - source requests caused by 100 visitors opening the same unstored document at once (goal: 1).
 */
export interface PreviewBenchResult {
  storedMs: { p50: number; p95: number; samples: number };
  unstoredMs: { p50: number; p95: number; samples: number };
  coalescing: { visitors: number; ok: number; sourceRequests: number; wallMs: number; goal: number };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 10) / 10;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runPreviewBench(
  opts: {
    storedSamples?: number;
    unstoredSamples?: number;
    visitors?: number;
    log?: (line: string) => void;
  } = {},
): Promise<PreviewBenchResult> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const bed = await startPreviewBed();
  const council = await startFakeCouncil({ hostname: 'ris-bench.test', objectsPerList: { file: 1000 } });
  try {
    const SRC = 'bench';
    const LISTED = 'https://ris-bench.test/oparl/v1/bodies/1';
    const UNLISTED = 'https://ris-bench.test/oparl/v1/bodies/2';
    await putSource(bed, { sourceId: SRC, systemUrl: council.systemUrl });
    await putBody(bed, SRC, { id: LISTED, listed: true });
    await putBody(bed, SRC, { id: UNLISTED, listed: false });
    let visitor = 0;
    const who = () => {
      visitor += 1;
      return `203.0.113.${visitor % 250}-${visitor}`;
    };

    // Stored: one opening fetches and stores (PRV-3), the rest come from S3.
    const storedId = await recordFile(bed, {
      sourceId: SRC,
      bodyId: LISTED,
      url: `${council.url}/files/1/1.pdf`,
      listed: true,
    });
    await open(bed, storedId, who());
    const store = new DocumentsStore(bed.aws.clients.doc, bed.aws.env.DOCUMENTS_TABLE);
    for (let i = 0; i < 100 && (await store.get(storedId))?.state !== 'stored'; i += 1) await sleep(50);
    const stored: number[] = [];
    for (let i = 0; i < (opts.storedSamples ?? 50); i += 1) {
      const t = performance.now();
      const r = await followStored(bed, await open(bed, storedId, who()));
      if (r.status !== 200) throw new Error(`stored copy answered ${r.status}`);
      stored.push(performance.now() - t);
    }
    log(`stored: ${stored.length} samples`);

    // Unstored (unlisted body): every opening is one polite fetch; spaced beyond the 1 s host pace.
    const unstored: number[] = [];
    for (let i = 0; i < (opts.unstoredSamples ?? 10); i += 1) {
      const id = await recordFile(bed, {
        sourceId: SRC,
        bodyId: UNLISTED,
        url: `${council.url}/files/1/${100 + i}.pdf`,
        listed: false,
      });
      await sleep(1_100);
      const t = performance.now();
      const r = await open(bed, id, who());
      if (r.status !== 200) throw new Error(`unstored opening answered ${r.status}`);
      unstored.push(performance.now() - t);
    }
    log(`unstored: ${unstored.length} samples`);

    // 100 visitors, one unstored document, at once.
    const visitors = opts.visitors ?? 100;
    const hotId = await recordFile(bed, {
      sourceId: SRC,
      bodyId: UNLISTED,
      url: `${council.url}/files/1/999.pdf`,
      listed: false,
    });
    await sleep(1_100);
    council.clearRequests();
    const t = performance.now();
    const answers = await Promise.all(Array.from({ length: visitors }, () => open(bed, hotId, who())));
    const wallMs = Math.round(performance.now() - t);
    const result: PreviewBenchResult = {
      storedMs: { p50: quantile(stored, 0.5), p95: quantile(stored, 0.95), samples: stored.length },
      unstoredMs: { p50: quantile(unstored, 0.5), p95: quantile(unstored, 0.95), samples: unstored.length },
      coalescing: {
        visitors,
        ok: answers.filter((r) => r.status === 200).length,
        sourceRequests: fileRequests(council.requests).length,
        wallMs,
        goal: 1,
      },
    };
    return result;
  } finally {
    await council.close();
    await bed.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runPreviewBench();
  console.log(JSON.stringify(result));
}
