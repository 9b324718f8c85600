import { LIST_KEYS } from '../demo';
import { indexItemOf, MirrorStore } from '../shared/mirror';
import {
  compressText,
  decompressText,
  INLINE_ITEM_MAX_BYTES,
  INLINE_QUALITY,
  LIST_INDEX,
  STATE_TABLE,
  storedItemBytes,
} from '../shared/store';
import { startAwsTestbed } from '../test/support/aws';
import { mirrorObjectItems, seedServedMirror } from '../test/support/mirror-api';
import { ASSUMPTIONS } from './cost/assumptions';

/**
 * `npm run bench -- inline-copy` (issue 28): the mirror index items' inline copies, plain (as stored
 * before) and packed (brotli, shared/store inline-copy.ts), on the demo council in the cost bench's
 * shape (150 objects a list, synced by the real engine into the local peers). Per brotli quality: the
 * packed copies' bytes and the CPU to pack one (one pass over all, per copy) — what picks INLINE_QUALITY —
 * and at the chosen quality the CPU to unpack a list page's worth (median of repeats) (what the API adds per page). Per form: the
 * index item's bytes by DynamoDB's rule (mean, p95), its `byList` copy's, and how many objects ride
 * inline (plain: at the bound the code had, the item's JSON ≤ INLINE_ITEM_MAX_BYTES). Prints JSON.
 */

const QUALITIES = [1, 3, 4, 5, 6, 7, 9, 11];
const REPEATS = 5;
const PAGE = 100;

const mean = (values: number[]) =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}
const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const stats = (values: number[]) => ({
  mean: round(mean(values)),
  p95: round(quantile(values, 0.95)),
  n: values.length,
});

/** The index attributes `byList` projects (shared/store tables.ts), keys included. */
const LIST = STATE_TABLE.globalIndexes.find((index) => index.indexName === LIST_INDEX);
const PROJECTED = ['pk', 'sk', LIST?.partitionKey, LIST?.sortKey, ...(LIST?.include ?? [])];
const copyOf = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([name]) => PROJECTED.includes(name)));

/** CPU of `run` in µs, median of REPEATS (after one warm-up). */
function cpuMicros(run: () => void): number {
  run();
  const samples: number[] = [];
  for (let i = 0; i < REPEATS; i += 1) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    samples.push(used.user + used.system);
  }
  return quantile(samples, 0.5);
}

export async function runInlineCopyBench(opts: { log?: (line: string) => void } = {}) {
  const log = opts.log ?? ((line: string) => console.error(line));
  const bed = await startAwsTestbed();
  const objectsPerList = Object.fromEntries(
    LIST_KEYS.map((key) => [key, key === 'legislativeTerm' ? ASSUMPTIONS.legislativeTermsPerBody : 150]),
  );
  try {
    log('inline-copy: syncing the demo council (two bodies, 150 objects a list) into the mirror');
    const m = await seedServedMirror(bed, 'inline-copy', { objectsPerList, pageSize: 10 });
    try {
      const mirror = new MirrorStore(bed.clients, {
        bucket: bed.env.BUCKET,
        stateTable: bed.env.STATE_TABLE,
      });
      const items = await mirrorObjectItems(bed);
      log(`inline-copy: ${items.length} index items`);

      // Each live item that may carry a copy (listed, or a body): its object as S3 holds it.
      const rows: { item: Record<string, unknown>; json: string }[] = [];
      for (const item of items) {
        if (item.deleted === true || item.takedown !== undefined) continue;
        if (item.lp === undefined && item.type !== 'body') continue;
        const record = await mirror.readKey(String(item.key));
        if (record && record.meta.deleted !== true) rows.push({ item, json: JSON.stringify(record.object) });
      }
      const bare = (item: Record<string, unknown>) => {
        const { o: _o, ...rest } = item;
        return rest;
      };

      const jsonBytes = rows.map((r) => Buffer.byteLength(r.json));
      const byQuality = QUALITIES.map((quality) => {
        // CPU to pack every copy once (one pass over all of them), per copy.
        const start = process.cpuUsage();
        const sizes = rows.map((r) => compressText(r.json, quality).byteLength);
        const used = process.cpuUsage(start);
        const micros = used.user + used.system;
        return {
          quality,
          packedBytes: stats(sizes),
          ratio: round(mean(jsonBytes) / mean(sizes), 2),
          packMicrosPerCopy: round(micros / rows.length),
        };
      });

      // Items as stored: plain (before: JSON text, inline when the item's JSON was within the bound),
      // packed (now: as the sync's commit builds it).
      const plainItems = rows.map(({ item, json }) => {
        const withCopy = { ...bare(item), o: json };
        return Buffer.byteLength(JSON.stringify(withCopy)) <= INLINE_ITEM_MAX_BYTES ? withCopy : bare(item);
      });
      const packedItems = rows.map(({ item, json }) => {
        const { item: built } = indexItemOf(
          {
            sourceId: String(item.sourceId),
            type: String(item.type),
            id: String(item.id),
            object: JSON.parse(json),
            fetchedAt: String(item.fetchedAt),
            hash: String(item.hash),
            ...(item.modified !== undefined ? { modified: String(item.modified) } : {}),
            ...(item.bodyId !== undefined ? { bodyId: String(item.bodyId) } : {}),
          },
          false,
        );
        return { pk: item.pk, sk: item.sk, ...built };
      });
      const form = (stored: Record<string, unknown>[]) => ({
        itemBytes: stats(stored.map(storedItemBytes)),
        listCopyBytes: stats(stored.filter((i) => i.lp !== undefined).map((i) => storedItemBytes(copyOf(i)))),
        inline: stored.filter((i) => i.o !== undefined).length,
        inlineCopyBytes: stats(
          stored.filter((i) => i.o !== undefined).map((i) => storedItemBytes({ o: i.o as unknown })),
        ),
      });

      // What the API adds per list page: unpacking PAGE copies (the demo's, cycled).
      const packed = rows.map((r) => compressText(r.json, INLINE_QUALITY));
      const page = Array.from({ length: PAGE }, (_, i) => packed[i % packed.length] as Uint8Array);
      const unpackMicrosPerPage = cpuMicros(() => {
        for (const copy of page) JSON.parse(decompressText(copy));
      });
      const plainPage = page.map((copy) => decompressText(copy));
      const parseMicrosPerPage = cpuMicros(() => {
        for (const text of plainPage) JSON.parse(text);
      });
      return {
        objects: rows.length,
        indexItems: items.length,
        objectJsonBytes: stats(jsonBytes),
        byQuality,
        chosenQuality: INLINE_QUALITY,
        bound: INLINE_ITEM_MAX_BYTES,
        plain: form(plainItems),
        packed: form(packedItems),
        apiPerListPage: {
          copies: PAGE,
          unpackAndParseMicros: round(unpackMicrosPerPage),
          parseOnlyMicros: round(parseMicrosPerPage),
        },
      };
    } finally {
      await m.close();
    }
  } finally {
    await bed.stop();
  }
}
