import { MIRROR_TYPES, type MirrorIndexEntry, MirrorStore } from '../../shared/mirror';
import { resolveBody, SourceNotFoundError } from '../../shared/onboarding';
import { loadAllSources, mirrorTablePlacement } from '../../shared/store';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';
import type { ObjectsInput } from '.';

/**
 * `ingestor objects [--source S] [--body SLUG] [--type T] [--since ISO] [--json]`: what the mirror holds,
 * from the index alone (never S3): one line per object with its type, state, commit time and origin id.
 * Tombstones are shown as such (OPT-2), so an operator sees what the API serves as `deleted: true` and
 * what it hides (taken down).
 */
export async function objectsCommand(rt: LocalRuntime, values: ObjectsInput): Promise<CommandResult> {
  // The table checked both: `--type` is one of MIRROR_TYPES, `--since` an instant (cli/commands/index.ts).
  const { type } = values;
  const since = values.since?.toISOString();
  const tables = {
    sources: rt.env.SOURCES_TABLE,
    state: rt.env.STATE_TABLE,
    documents: rt.env.DOCUMENTS_TABLE,
    mirror: mirrorTablePlacement(rt.env),
  };
  const { parsed } = await loadAllSources(rt.clients.doc, tables.sources);
  const all = parsed.map((p) => (p.ok ? p.source.sourceId : p.sourceId));
  if (values.source !== undefined && !all.includes(values.source))
    throw new SourceNotFoundError(values.source);
  let sources = values.source === undefined ? all : [values.source];
  let bodyId: string | undefined;
  if (values.body !== undefined) {
    const resolved = await resolveBody(rt.clients.doc, tables, values.body, values.source);
    bodyId = resolved.body.id;
    sources = [resolved.sourceId];
  }
  const mirror = new MirrorStore(rt.clients, {
    bucket: rt.env.BUCKET,
    stateTable: tables.state,
    mirrorTable: tables.mirror,
  });
  const objects: MirrorIndexEntry[] = [];
  for (const sourceId of sources) {
    for (const t of type === undefined ? MIRROR_TYPES : [type]) {
      for await (const entry of mirror.listAll(sourceId, t, bodyId === undefined ? {} : { bodyId })) {
        if (since === undefined || entry.fetchedAt >= since) objects.push(entry);
      }
    }
  }
  const rows = objects.map((e) => ({
    sourceId: e.sourceId,
    type: e.type,
    id: e.id,
    state: e.takedown !== undefined ? 'taken-down' : e.deleted ? 'deleted' : 'live',
    committedAt: e.fetchedAt,
    ...(e.modified !== undefined ? { modified: e.modified } : {}),
    ...(e.bodyId !== undefined ? { bodyId: e.bodyId } : {}),
  }));
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.type] = (counts[r.type] ?? 0) + 1;
  const text =
    rows.length === 0
      ? ['no objects']
      : [
          ...rows.map(
            (r) => `${r.type.padEnd(15)} ${r.state.padEnd(10)} ${r.committedAt}  ${r.sourceId}  ${r.id}`,
          ),
          `${rows.length} object(s): ${Object.entries(counts)
            .map(([t, n]) => `${t} ${n}`)
            .join(', ')}`,
        ];
  return { text, json: { objects: rows, counts } };
}
