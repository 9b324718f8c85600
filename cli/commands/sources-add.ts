import { readFile } from 'node:fs/promises';
import { type AddSourceResult, addSource, readImportFile } from '../../shared/onboarding';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';
import { createProgress, type Progress } from '../progress';
import type { SourcesAddInput, SourcesImportInput } from '.';

/**
 * `sources add <systemUrl>` and `sources import <file> [--activate]` (ONB-2, ONB-3): robots.txt, the
 * System and the body list (≤ 20 pages) are read at the host's pace, then the source is stored —
 * inactive, or with `import --activate` active when the check read its System. New bodies are
 * recorded unlisted (ONB-4). Existing sources keep their state and are not fetched.
 */

function describe(r: AddSourceResult): string[] {
  if (!r.created) return [`${r.sourceId} exists already; left as it is (ONB-3)`];
  const lines = [
    `added ${r.sourceId} (${r.active ? 'active' : 'inactive'})${
      r.active ? '' : `; activate with: ingestor sources activate ${r.sourceId}`
    }`,
  ];
  if (r.check) {
    lines.push(
      `  robots.txt: ${r.check.robots}; System: ${r.check.system ? `OParl ${r.check.system.oparlVersion ?? '?'}` : 'not read'}` +
        `; body list: ${r.check.bodyListPages} page(s)${r.check.bodiesComplete ? '' : ' (incomplete)'}`,
    );
    if (r.check.problem) lines.push(`  check: ${r.check.problem}`);
  }
  if (r.notActivated) lines.push(`  not activated: ${r.notActivated}`);
  for (const b of r.bodies) lines.push(`  body ${b.slug}  ${b.name}  (${b.listed ? 'listed' : 'unlisted'})`);
  if (r.bodies.length > 0) lines.push('  list a body with: ingestor bodies list <slug> (ONB-4)');
  return lines;
}

function jsonOf(r: AddSourceResult) {
  return {
    sourceId: r.sourceId,
    systemUrl: r.systemUrl,
    created: r.created,
    active: r.active,
    check: r.check,
    bodies: r.bodies,
    ...(r.notActivated !== undefined ? { notActivated: r.notActivated } : {}),
  };
}

async function withFetcher<T>(
  rt: LocalRuntime,
  run: (deps: Parameters<typeof addSource>[0]) => Promise<T>,
  progress?: Progress,
): Promise<T> {
  const runtime = await composeCli(rt).fetchRuntime(progress ? { onRequest: progress.request } : {});
  try {
    await runtime.hostIntervals.refresh();
    return await run({
      doc: rt.clients.doc,
      tables: { sources: rt.env.SOURCES_TABLE, state: rt.env.STATE_TABLE },
      fetcher: runtime.fetcher,
      hostIntervalMs: (host) => runtime.hostIntervals.forHost(host),
    });
  } finally {
    await runtime.close();
  }
}

/** The item's fields the options give (`--name`, `--kind`, `--adapter`); the rest are defaults. */
function fieldsFrom(input: SourcesAddInput): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of ['name', 'kind', 'adapter'] as const) {
    if (input[key] !== undefined) fields[key] = input[key];
  }
  return fields;
}

/** `sources add <systemUrl>`: `systemUrl` is the table's one argument (arity [1, 1]). */
export async function addSourceCommand(
  rt: LocalRuntime,
  systemUrl: string,
  input: SourcesAddInput,
): Promise<CommandResult> {
  const result = await withFetcher(rt, (deps) =>
    addSource(deps, {
      systemUrl,
      ...(input.id !== undefined ? { sourceId: input.id } : {}),
      fields: fieldsFrom(input),
      updatedBy: 'cli',
    }),
  );
  return { text: describe(result), json: jsonOf(result) };
}

/** `sources import <file>`: `file` is the table's one argument (arity [1, 1]). */
export async function importSourcesCommand(
  rt: LocalRuntime,
  file: string,
  input: SourcesImportInput & { json: boolean },
): Promise<CommandResult> {
  const { entries, encoding, warnings } = readImportFile(await readFile(file));
  const { activate } = input;
  const rows: (
    | ReturnType<typeof jsonOf>
    | { line: number; systemUrl: string; error: string; message: string }
  )[] = [];
  const text: string[] = warnings.map((w) => `warning: ${w}`);
  const progress = createProgress({ json: input.json });
  await withFetcher(
    rt,
    async (deps) => {
      for (const [done, entry] of entries.entries()) {
        progress.step('import', done, entries.length);
        try {
          const result = await addSource(deps, {
            systemUrl: entry.systemUrl,
            ...(entry.sourceId !== undefined ? { sourceId: entry.sourceId } : {}),
            fields: entry.fields,
            activate,
            updatedBy: 'cli import',
          });
          rows.push(jsonOf(result));
          text.push(...describe(result));
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          const message = error instanceof Error ? error.message : String(error);
          rows.push({
            line: entry.line,
            systemUrl: entry.systemUrl,
            error: typeof code === 'string' ? code : 'ERROR',
            message,
          });
          text.push(`entry ${entry.line} (${entry.systemUrl}): not added — ${message}`);
        }
      }
    },
    progress,
  );
  progress.end();
  const failed = rows.filter((r) => 'error' in r).length;
  const created = rows.filter((r) => 'created' in r && r.created).length;
  text.push(`${created} added, ${rows.length - created - failed} existed already, ${failed} refused`);
  return {
    text,
    json: { sources: rows, created, failed, encoding, warnings },
    exitCode: failed > 0 ? 1 : 0,
  };
}
