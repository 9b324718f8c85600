import type { SourceItem } from '../config';
import { loadAllSources, putSourceItem, type TableContext } from '../store';
import { hostKeyOrUndefined } from '../util';

/**
 * OPT-4: "With several sources on one server, a change applies to all of them." The per-source knobs
 * a municipality can ask for — slower pace, slower cadence, a full-sync window, a minimum distance,
 * sliced mode, file fetching off, deactivation — are applied to every source on the same host
 * (the SPEC's "server": one `hostKey`, whatever the spelling — trailing dot, case, port). Activation is not such a knob: switching one source on
 * never switches on its neighbours.
 */
export const HOST_WIDE_KEYS = [
  'requestIntervalSeconds',
  'cadenceMinutes',
  'fullSyncWindow',
  'fullSyncMinDays',
  'fullSyncSliced',
  'fileFetching',
] as const;

/** The `key=value` assignments of `sources set` that OPT-4 applies host-wide. */
export function hostWideAssignments(assignments: readonly string[]): string[] {
  return assignments.filter((a) => {
    const key = a.slice(0, Math.max(0, a.indexOf('='))).split('.')[0] ?? '';
    return (HOST_WIDE_KEYS as readonly string[]).includes(key);
  });
}

/** The host key (shared/util `hostKey`) of a raw item's systemUrl: `ris.example.de.` is `ris.example.de`. */
function hostOfUrl(url: unknown): string | undefined {
  return typeof url === 'string' ? hostKeyOrUndefined(url) : undefined;
}

export interface SiblingUpdate {
  host: string;
  updated: string[];
  /** Siblings whose item would become (or already is) invalid: left unchanged, with the reason. */
  skipped: { sourceId: string; reason: string }[];
}

/** Applies `mutate` to every other source on `sourceId`'s host and stores each after validation. */
export async function applyToHostSiblings(
  { doc, table }: TableContext,
  sourceId: string,
  mutate: (item: Record<string, unknown>) => void,
  audit: { by: string; now?: Date },
): Promise<SiblingUpdate> {
  const { raw } = await loadAllSources(doc, table);
  const host = hostOfUrl(raw.get(sourceId)?.systemUrl) ?? '';
  const result: SiblingUpdate = { host, updated: [], skipped: [] };
  if (host === '') return result;
  const at = (audit.now ?? new Date()).toISOString();
  for (const [id, item] of [...raw.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (id === sourceId || hostOfUrl(item.systemUrl) !== host) continue;
    const updated: Record<string, unknown> = structuredClone(item);
    try {
      mutate(updated);
      updated.updatedAt = at;
      updated.updatedBy = audit.by;
      await putSourceItem(doc, table, updated as SourceItem & Record<string, unknown>);
      result.updated.push(id);
    } catch (error) {
      result.skipped.push({ sourceId: id, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}
