import type { SourceItem } from '../../shared/config';
import { parseSourceItem } from '../../shared/config';
import { applyToHostSiblings, hostWideAssignments } from '../../shared/onboarding';
import { getSourceItem, getSourceState, loadAllSources, putSourceItem } from '../../shared/store';
import { ArgsError } from '../args';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

/**
 * `sources list|show|add|import|set|activate|deactivate` against the Sources table. The command table
 * (cli/commands/index.ts) dispatches each subcommand to its function here and has checked its words
 * (arity) and options already; nothing here reads the command line.
 */

/** `sources set <id> key=value… [--only]`, `activate <id>`, `deactivate <id> [--only]`. */
export type SourceChange =
  | { sourceId: string; set: string[]; only: boolean }
  | { sourceId: string; active: boolean; only: boolean };

/** `sources list`: every source item, valid or not, with its problems. */
export async function listSources(rt: LocalRuntime): Promise<CommandResult> {
  const { doc } = rt.clients;
  const table = rt.env.SOURCES_TABLE;
  const { parsed } = await loadAllSources(doc, table);
  const rows = parsed.map((p) =>
    p.ok
      ? {
          sourceId: p.source.sourceId,
          valid: true,
          active: p.source.active,
          kind: p.source.kind,
          systemUrl: p.source.systemUrl,
          requestIntervalSeconds: p.source.requestIntervalSeconds,
          fileFetching: p.source.fileFetching,
          warnings: p.warnings,
        }
      : { sourceId: p.sourceId, valid: false, problems: p.problems },
  );
  const text =
    rows.length === 0
      ? ['no sources']
      : rows.map((r) =>
          !r.valid && 'problems' in r && r.problems
            ? `${r.sourceId}  INVALID  ${r.problems.map((x) => `${x.field}: ${x.message}`).join('; ')}`
            : 'active' in r
              ? `${r.sourceId}  ${r.active ? 'active  ' : 'inactive'}  ${r.kind}  ${r.systemUrl}  every ${r.requestIntervalSeconds}s${r.fileFetching ? '' : '  files off'}`
              : r.sourceId,
        );
  return { text, json: { sources: rows } };
}

/** `sources show <id>`: the stored item, its validity and the planner's last decision. */
export async function showSource(rt: LocalRuntime, id: string): Promise<CommandResult> {
  const { doc } = rt.clients;
  const table = rt.env.SOURCES_TABLE;
  const item = await getSourceItem(doc, table, id);
  if (!item) return { text: [`no source ${id}`], json: { error: 'NOT_FOUND', sourceId: id }, exitCode: 1 };
  const parsed = parseSourceItem(item);
  const state = await getSourceState(doc, rt.env.STATE_TABLE, id);
  const text = [
    `source ${id}`,
    ...Object.entries(item).map(
      ([k, v]) => `  ${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`,
    ),
    parsed.ok
      ? `  valid${parsed.warnings.length ? ` (warnings: ${parsed.warnings.map((w) => `${w.field} ${w.message}`).join('; ')})` : ''}`
      : `  INVALID: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
  ];
  if (state?.lastDecision)
    text.push(`  last decision: ${state.lastDecision.action} — ${state.lastDecision.reason}`);
  return { text, json: { item, parsed, state: state ?? null } };
}

/**
 * `sources set <id> key=value…`, `activate <id>`, `deactivate <id>` — a host-wide change reaches the other
 * sources on the server too unless `--only` (OPT-4).
 */
export async function changeSource(rt: LocalRuntime, change: SourceChange): Promise<CommandResult> {
  const { sourceId: id, only } = change;
  const assignments = 'set' in change ? change.set : [];
  // Every assignment is read before anything is: a bad one refuses the whole line (exit 2).
  for (const a of assignments) applyAssignment({}, a);
  const { doc } = rt.clients;
  const table = rt.env.SOURCES_TABLE;
  const item = await getSourceItem(doc, table, id);
  if (!item) return { text: [`no source ${id}`], json: { error: 'NOT_FOUND', sourceId: id }, exitCode: 1 };
  const updated: Record<string, unknown> = structuredClone(item);
  if ('active' in change) updated.active = change.active;
  for (const a of assignments) applyAssignment(updated, a);
  updated.updatedAt = new Date().toISOString();
  updated.updatedBy = 'cli';
  const { parsed } = await putSourceItem(doc, table, updated as SourceItem & Record<string, unknown>);
  const warnings = parsed.ok ? parsed.warnings : [];
  // OPT-4: with several sources on one server, a change applies to all of them (not activation).
  const hostWide = hostWideAssignments(assignments);
  const deactivate = 'active' in change && !change.active;
  const siblings =
    only || (!deactivate && hostWide.length === 0)
      ? undefined
      : await applyToHostSiblings(
          { doc, table },
          id,
          (sibling) => {
            if (deactivate) sibling.active = false;
            for (const a of hostWide) applyAssignment(sibling, a);
          },
          { by: 'cli' },
        );
  return {
    text: [
      `updated ${id}`,
      ...warnings.map((w) => `  warning: ${w.field} ${w.message}`),
      ...(siblings && siblings.updated.length > 0
        ? [`  also on ${siblings.host} (OPT-4): ${siblings.updated.join(', ')}`]
        : []),
      ...(siblings?.skipped ?? []).map((x) => `  not changed: ${x.sourceId} — ${x.reason}`),
    ],
    json: {
      sourceId: id,
      updated: true,
      item: updated,
      warnings,
      ...(siblings ? { alsoUpdated: siblings.updated, notUpdated: siblings.skipped } : {}),
    },
  };
}

/** `a.b=value`: value parsed as JSON when it is JSON (numbers, booleans, objects), else kept as text; `a=` removes. */
export function applyAssignment(target: Record<string, unknown>, assignment: string): void {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new ArgsError('arguments', `expected key=value, got "${assignment}"`);
  const path = assignment.slice(0, eq).split('.');
  const rawValue = assignment.slice(eq + 1);
  if (path.includes('sourceId')) throw new ArgsError('arguments', 'sourceId cannot be changed');
  let value: unknown = rawValue;
  try {
    value = JSON.parse(rawValue);
  } catch {
    // plain text
  }
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === undefined || next === null || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  if (rawValue === '') delete node[last];
  else node[last] = value;
}
