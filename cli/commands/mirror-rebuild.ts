import { type OParlObject, storedVersion } from '../../shared/engine';
import { MIRROR_BULK_DEFAULT_RATE, type MirrorRebuildDeps, rebuildMirrorIndex } from '../../shared/mirror';
import { SourceNotFoundError } from '../../shared/onboarding';
import { loadAllSources, mirrorTablePlacement } from '../../shared/store';
import { sealTakenDown, type TakedownMark, TakedownRegistry } from '../../shared/takedown';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, UsageError } from '../output';
import { BACKFILL_MAX_RATE, type MirrorRebuildInput } from '.';

/**
 * `ingestor mirror rebuild --source ID | --all [--rate N] [--dry-run] [--restart]` (issue 28): the
 * Mirror table rebuilt from the S3 records (shared/mirror rebuild.ts), with the takedown registry as the
 * authority (OPT-5) and each source's versioning for the hash. Resumable, idempotent, paced. The API
 * list counters are recounted by `backfill-index` afterwards (the output says so).
 */
export async function mirrorRebuildCommand(
  rt: LocalRuntime,
  values: MirrorRebuildInput,
  deps: { now?: () => number; sleep?: (ms: number) => Promise<void>; pageSize?: number } = {},
): Promise<CommandResult> {
  const rate = values.rate ?? MIRROR_BULK_DEFAULT_RATE;
  if (!Number.isInteger(rate) || rate < 1 || rate > BACKFILL_MAX_RATE)
    throw new UsageError(`--rate must be a whole number from 1 to ${BACKFILL_MAX_RATE}, got ${values.rate}`);
  if ((values.source === undefined) === (values.all !== true))
    throw new UsageError('give --source ID or --all');
  const { parsed } = await loadAllSources(rt.clients.doc, rt.env.SOURCES_TABLE);
  const kinds = new Map(parsed.flatMap((p) => (p.ok ? [[p.source.sourceId, p.source.kind] as const] : [])));
  if (
    values.source !== undefined &&
    !parsed.some((p) => (p.ok ? p.source.sourceId : p.sourceId) === values.source)
  )
    throw new SourceNotFoundError(values.source);
  const report = await rebuildMirrorIndex(
    rt.clients,
    { bucket: rt.env.BUCKET, stateTable: rt.env.STATE_TABLE, mirrorTable: rt.env.MIRROR_TABLE },
    rebuildDeps(rt, kinds),
    {
      ...(values.source !== undefined ? { sourceId: values.source } : {}),
      phase: rt.env.MIRROR_TABLE_PHASE,
      ratePerSecond: rate,
      dryRun: values.dryRun,
      restart: values.restart,
      ...deps,
    },
  );
  const c = report.counts;
  const verb = report.dryRun ? 'would write' : 'written';
  const text = report.alreadyDone
    ? [`mirror rebuild (${report.scope}): finished before (${c.written} written); --restart for another pass`]
    : [
        `mirror rebuild (${report.scope}): ${c.scanned} record(s) read, ${c.written} item(s) ${verb}, ${c.present} already there, ${c.newer} kept as newer, ${c.takenDown} taken down (never live)${c.sealed > 0 ? `, ${c.sealed} taken down during the rebuild (sealed)` : ''}${c.raced > 0 ? `, ${c.raced} changing on every attempt — run again with --restart` : ''}, ${c.unreadable} unreadable`,
        ...report.unreadable.map((u) => `  unreadable: ${u}`),
        ...(report.dryRun ? [] : ['then recount the API lists: ingestor backfill-index']),
      ];
  return { text, json: { ...report, rate }, ...(c.unreadable > 0 ? { exitCode: 1 } : {}) };
}

/** The rebuild's deps from above the mirror: versioning by source kind (engine), registry and seal (takedown). */
function rebuildDeps(rt: LocalRuntime, kinds: ReadonlyMap<string, 'oparl' | 'scraper'>): MirrorRebuildDeps {
  const registry = new TakedownRegistry(rt.clients.doc, rt.env.STATE_TABLE);
  const sealDeps = {
    clients: rt.clients,
    bucket: rt.env.BUCKET,
    stateTable: rt.env.STATE_TABLE,
    mirrorTable: mirrorTablePlacement(rt.env),
  };
  return {
    versionOf: (sourceId, object) => storedVersion(object as OParlObject, kinds.get(sourceId) ?? 'oparl'),
    takedowns: async (sourceId) => {
      const set = await registry.load(sourceId);
      return (subject) => set.covers(subject);
    },
    seal: async (entry, mark) => {
      await sealTakenDown(sealDeps, entry, mark as unknown as TakedownMark);
    },
  };
}
