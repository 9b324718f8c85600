import type { SourceItem } from '../../shared/config';
import { parseSourceItem } from '../../shared/config';
import { applyToHostSiblings, hostWideAssignments } from '../../shared/onboarding';
import { getSourceItem, getSourceState, loadAllSources, putSourceItem } from '../../shared/store';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, UsageError } from '../output';
import { addSourceCommand, importSourcesCommand } from './sources-add';

export interface SourcesArgs {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

/** `sources list|show|add|set|activate|deactivate` against the Sources table. */
export async function sourcesCommand(rt: LocalRuntime, args: SourcesArgs): Promise<CommandResult> {
  const [sub, ...rest] = args.positionals;
  switch (sub) {
    case 'list':
      return listSources(rt);
    case 'show':
      return showSource(rt, rest);
    case 'add':
      // ONB-2 / ONB-3: robots.txt, System and body list first, then stored inactive.
      return addSourceCommand(rt, args);
    case 'import':
      return importSourcesCommand(rt, args);
    case 'set':
    case 'activate':
    case 'deactivate':
      return changeSource(rt, sub, rest, args.values.only === true);
    default:
      throw new UsageError('sources list|show|add|import|set|activate|deactivate');
  }
}

/** `sources list`: every source item, valid or not, with its problems. */
async function listSources(rt: LocalRuntime): Promise<CommandResult> {
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
async function showSource(rt: LocalRuntime, rest: string[]): Promise<CommandResult> {
  const { doc } = rt.clients;
  const table = rt.env.SOURCES_TABLE;
  const id = requireArg(rest[0], 'sources show <sourceId>');
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
async function changeSource(
  rt: LocalRuntime,
  sub: 'set' | 'activate' | 'deactivate',
  rest: string[],
  only: boolean,
): Promise<CommandResult> {
  const { doc } = rt.clients;
  const table = rt.env.SOURCES_TABLE;
  const id = requireArg(rest[0], `sources ${sub} <sourceId>${sub === 'set' ? ' key=value…' : ''}`);
  const item = await getSourceItem(doc, table, id);
  if (!item) return { text: [`no source ${id}`], json: { error: 'NOT_FOUND', sourceId: id }, exitCode: 1 };
  const updated: Record<string, unknown> = structuredClone(item);
  if (sub === 'activate') updated.active = true;
  else if (sub === 'deactivate') updated.active = false;
  else {
    const assignments = rest.slice(1);
    if (assignments.length === 0)
      throw new UsageError('sources set <sourceId> key=value… (e.g. requestIntervalSeconds=5)');
    for (const a of assignments) applyAssignment(updated, a);
  }
  updated.updatedAt = new Date().toISOString();
  updated.updatedBy = 'cli';
  const { parsed } = await putSourceItem(doc, table, updated as SourceItem & Record<string, unknown>);
  const warnings = parsed.ok ? parsed.warnings : [];
  // OPT-4: with several sources on one server, a change applies to all of them (not activation).
  const hostWide = sub === 'set' ? hostWideAssignments(rest.slice(1)) : [];
  const siblings =
    only || (sub !== 'deactivate' && hostWide.length === 0)
      ? undefined
      : await applyToHostSiblings(
          { doc, table },
          id,
          (sibling) => {
            if (sub === 'deactivate') sibling.active = false;
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

function requireArg(value: string | undefined, usage: string): string {
  if (value === undefined || value === '') throw new UsageError(`usage: ingestor ${usage}`);
  return value;
}

/** `a.b=value`: value parsed as JSON when it is JSON (numbers, booleans, objects), else kept as text; `a=` removes. */
export function applyAssignment(target: Record<string, unknown>, assignment: string): void {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new UsageError(`expected key=value, got "${assignment}"`);
  const path = assignment.slice(0, eq).split('.');
  const rawValue = assignment.slice(eq + 1);
  if (path.includes('sourceId')) throw new UsageError('sourceId cannot be changed');
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
