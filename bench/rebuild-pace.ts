import type { OParlObject } from '../shared/engine';
import { storedVersion } from '../shared/engine';
import { MIRROR_BULK_CONCURRENCY, rebuildMirrorIndex } from '../shared/mirror';
import { MirrorRecords } from '../shared/store';
import { sealTakenDown, type TakedownMark, TakedownRegistry } from '../shared/takedown';
import { startAwsTestbed } from '../test/support/aws';

/**
 * Issue 28 (docs/operations.md "Rebuilding the Mirror table"): how many records a second `mirror
 * rebuild` does when every request waits on the network — the real command (shared/mirror rebuild.ts)
 * against the local peers, each S3 and DynamoDB request held for a fixed time before it goes out (a
 * client middleware: the round trip of an operator's machine outside the region, or of one inside it).
 * The rate limit is set far above (the pace is what the round trips allow); each concurrency rebuilds a
 * source of its own into the empty Mirror table. The delays are ASSUMED (stated per scenario); what is
 * measured is what the command makes of them — requests per record in sequence, page barriers,
 * registry reads and checkpoints — against the model concurrency ÷ (S3 GET + PutItem).
 *
 * REBUILD_PACE_RECORDS (default 600) records per run.
 */
const SCENARIOS = [
  /** An operator's machine outside the region: ≈ 100 ms a request (assumed). */
  { name: 'outside the region', s3Ms: 100, dynamoMs: 100 },
  /** In the region: S3 first byte ≈ 30 ms (assumptions.ts apiS3RoundSeconds), DynamoDB ≈ 10 ms (assumed). */
  { name: 'in the region', s3Ms: 30, dynamoMs: 10 },
  /** No delay: what the local peers (in this process) allow by themselves — the ceiling of this machine. */
  { name: 'local peers only', s3Ms: 0, dynamoMs: 0 },
];

type Stack = {
  add(mw: unknown, options: Record<string, unknown>): void;
  remove(name: string): boolean;
};

/** Holds every request of the client `ms` before it goes out; returns the removal. */
function delayEach(stack: Stack, ms: number, name: string): () => void {
  stack.add(
    (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => void stack.remove(name);
}

export async function runRebuildPaceBench(
  options: { records?: number; log?: (line: string) => void } = {},
): Promise<unknown> {
  const records = options.records ?? Number(process.env.REBUILD_PACE_RECORDS ?? 600);
  const log = options.log ?? (() => undefined);
  const bed = await startAwsTestbed({ MIRROR_TABLE_PHASE: 'own' });
  try {
    const store = new MirrorRecords({ s3: bed.clients.s3, bucket: bed.env.BUCKET });
    const registry = new TakedownRegistry(bed.clients.doc, bed.env.STATE_TABLE);
    const sealDeps = {
      clients: bed.clients,
      bucket: bed.env.BUCKET,
      stateTable: bed.env.STATE_TABLE,
      mirrorTable: { table: bed.env.MIRROR_TABLE, phase: 'own' as const },
    };
    const deps = {
      versionOf: (_sourceId: string, object: unknown) => storedVersion(object as OParlObject, 'oparl'),
      takedowns: async (sourceId: string) => {
        const set = await registry.load(sourceId);
        return (subject: { id: string; bodyId?: string; parentId?: string }) => set.covers(subject);
      },
      seal: async (entry: Parameters<typeof sealTakenDown>[1], mark: { at: string }) => {
        await sealTakenDown(sealDeps, entry, mark as unknown as TakedownMark);
      },
    };
    const runs: unknown[] = [];
    let n = 0;
    for (const scenario of SCENARIOS) {
      for (const concurrency of [8, MIRROR_BULK_CONCURRENCY]) {
        n += 1;
        const sourceId = `pace-${n}`;
        const fetchedAt = '2026-12-01T08:00:00.000Z';
        for (let i = 0; i < records; i++) {
          const id = `https://ris.example/oparl/paper/${i}`;
          await store.write(
            { sourceId, type: 'paper', id },
            {
              object: { id, type: 'https://schema.oparl.org/1.1/Paper', name: `Vorlage ${i}` },
              meta: { id, type: 'paper', sourceId, sourceUrl: id, fetchedAt },
            },
            'live',
          );
        }
        const removeS3 = delayEach(
          bed.clients.s3.middlewareStack as unknown as Stack,
          scenario.s3Ms,
          `pace-s3-${n}`,
        );
        const removeDynamo = delayEach(
          bed.clients.dynamo.middlewareStack as unknown as Stack,
          scenario.dynamoMs,
          `pace-dynamo-${n}`,
        );
        const started = performance.now();
        let report: Awaited<ReturnType<typeof rebuildMirrorIndex>>;
        try {
          report = await rebuildMirrorIndex(
            bed.clients,
            { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE, mirrorTable: bed.env.MIRROR_TABLE },
            deps,
            { sourceId, phase: 'own', ratePerSecond: 100_000, concurrency },
          );
        } finally {
          removeS3();
          removeDynamo();
        }
        const seconds = (performance.now() - started) / 1000;
        const roundTrip = (scenario.s3Ms + scenario.dynamoMs) / 1000;
        const model = roundTrip > 0 ? concurrency / roundTrip : undefined;
        const run = {
          scenario: scenario.name,
          s3Ms: scenario.s3Ms,
          dynamoMs: scenario.dynamoMs,
          concurrency,
          written: report.counts.written,
          seconds: Math.round(seconds * 100) / 100,
          recordsPerSecond: Math.round(records / seconds),
          ...(model !== undefined ? { modelRecordsPerSecond: Math.round(model) } : {}),
          /** 13.1 M records (1,000 sources, docs/operations.md) at the measured pace, capped by the default rate 200/s. */
          hoursAt1000Sources: Math.round((13.1e6 / Math.min(records / seconds, 200) / 3600) * 10) / 10,
        };
        log(JSON.stringify(run));
        runs.push(run);
      }
    }
    return { bench: 'rebuild-pace', records, runs };
  } finally {
    await bed.stop();
  }
}
