import { startFakeCouncil } from '../../demo';
import { parseEnv } from '../../shared/config';
import { composeDocuments, runDeletionCheck, runFilesPass } from '../../shared/documents';
import { createTestResolver } from '../../shared/net';
import { createHostSlots } from '../../shared/slots';
import { DeletionRuns } from '../../shared/store';
import type { AwsTestbed } from '../../test/support/aws';
import {
  type DocumentsBed,
  HOUR,
  putBody,
  putSource,
  recordFile,
  T0,
} from '../../test/support/documents-bed';
import { InstantClock } from '../../test/support/fetch-kit';

/** What the cost bench's meter tells of the calls since its last reset. */
export interface UnitsMeter {
  read(): {
    writeUnits: number;
    readUnits: number;
    writesBy: Record<string, number>;
    readsBy: Record<string, number>;
  };
  reset(): void;
}

export interface DeletionSampleUnits {
  /** HEAD samples the measured runs made (all answered 304: the file is still there). */
  samples: number;
  runs: number;
  /** Write units of a sample: the run's writes but its one `deletion-runs` record, per sample. */
  writeUnitsPerSample: number;
  /**
   * Write units of the one `deletion-runs` record a run (a shard) writes whatever its samples (shared/
   * store deletion-runs.ts): measured by writing the last run's record again through the store.
   */
  writeUnitsPerRun: number;
  /** Read units of the Documents table (queues, walk cursor) per sample. */
  readUnitsPerSample: number;
  /** The measured runs' write units by command, key family and index copy. */
  writesBy: Record<string, number>;
  /** The measured runs' read units by command and key family (each run's source loads included). */
  readsBy: Record<string, number>;
}

/**
 * Issue 28: the DynamoDB units of the deletion check's DEL-2 samples, measured through the real
 * deletion-check code against the local DynamoDB (the cost meter on its client): one listed body whose
 * files were stored `perRun` an hour over `hours` hours — the model's rate at 1,000 sources is ≈ 8 per
 * body and hourly run (2,000 stored files a source, 1.5 bodies, a weekly sample) — then sampled for two
 * weeks; the second week is measured (the first moves each stored file into its steady place).
 */
export async function measureDeletionSamples(
  aws: AwsTestbed,
  meter: UnitsMeter,
  { perRun = 8, hours = 3 }: { perRun?: number; hours?: number } = {},
): Promise<DeletionSampleUnits> {
  const files = perRun * hours;
  const council = await startFakeCouncil({
    hostname: 'ris-cost-deletion.test',
    objectsPerList: { file: files },
  });
  const clock = new InstantClock(T0);
  const env = parseEnv({ ...aws.peers.env, INGESTOR_ALLOW_LOOPBACK: 'true' });
  const runtime = await composeDocuments(env, {
    clients: aws.clients,
    resolver: createTestResolver(),
    slots: createHostSlots({ clock }),
    clock,
    sleep: clock.sleep,
  });
  try {
    // The documents bed's helpers need only the peers and the clock.
    const bed = { aws, clock } as unknown as DocumentsBed;
    const sourceId = 'cost-deletion';
    const bodyId = 'https://ris-cost-deletion.test/oparl/v1/bodies/1';
    await putSource(bed, { sourceId, systemUrl: council.systemUrl });
    await putBody(bed, sourceId, { id: bodyId, listed: true });
    const startMs = clock.now();
    for (let hour = 0; hour < hours; hour++) {
      clock.timeMs = startMs + hour * HOUR;
      for (let n = 1; n <= perRun; n++) {
        const url = `${council.url}/files/1/${hour * perRun + n}.pdf`;
        await recordFile(bed, { sourceId, bodyId, url });
      }
      await runFilesPass(runtime.deps, { now: new Date(clock.now()) });
    }
    const hourly = async (fromMs: number) => {
      let samples = 0;
      for (let hour = 0; hour <= hours; hour++) {
        clock.timeMs = fromMs + hour * HOUR;
        const report = await runDeletionCheck(runtime.deps, { now: new Date(clock.now()) });
        samples += report.checks['sample:unchanged'] ?? 0;
      }
      return { samples, runs: hours + 1 };
    };
    const week = 7 * 24 * HOUR;
    await hourly(startMs + week);
    meter.reset();
    const { samples, runs } = await hourly(startMs + 2 * week);
    const m = meter.read();
    // The per-run record once more, as the last run wrote it (same key, same size): its units alone.
    const records = new DeletionRuns({ doc: aws.clients.doc, table: aws.env.DOCUMENTS_TABLE });
    const [shardKey, measured] = Object.entries(await records.all())[0] ?? [];
    meter.reset();
    if (shardKey !== undefined && measured !== undefined) await records.record(shardKey, measured);
    const writeUnitsPerRun = meter.read().writeUnits;
    // The Documents table's reads only (its queues and the walk cursors: the meter labels a query
    // without a `pk` value `pk`, a get by `docId` `docId`): the Sources, State and takedown loads of a
    // run are per source, not per sample, and here include the bench's other sources.
    const documentReads = Object.entries(m.readsBy)
      .filter(([label]) => /^(Query pk|GetItem docId)$/.test(label))
      .reduce((sum, [, units]) => sum + units, 0);
    return {
      samples,
      runs,
      writeUnitsPerSample: samples > 0 ? Math.max(0, m.writeUnits - runs * writeUnitsPerRun) / samples : 0,
      writeUnitsPerRun,
      readUnitsPerSample: samples > 0 ? documentReads / samples : 0,
      writesBy: m.writesBy,
      readsBy: m.readsBy,
    };
  } finally {
    await runtime.close();
    await council.close();
  }
}
