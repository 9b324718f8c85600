import { mirrorTablePlacement } from '../../shared/store';
import {
  type InvalidationOutcome,
  invalidateAfterTakedown,
  liftTakedown,
  purgeDeleted,
  recordingInvalidator,
  type TakedownDeps,
  tombstoneBody,
  tombstoneIds,
} from '../../shared/takedown';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

/**
 * `tombstone --body <slug> | --ids <id,…>` (OPT-2) and `purge-deleted --body <slug> [--yes]` (OPT-3).
 * A tombstone hides at once and keeps everything for audit; the purge deletes physically, and only
 * with `--yes` — without it, it shows exactly what would go.
 *
 * OPT-2 "at once": after the takedown is recorded, `tombstone` invalidates the CDN paths it changed
 * (`rt.cdn`: CloudFront with `--aws`; locally no CDN, the paths are recorded) and reports them. A failed
 * invalidation never undoes the takedown: it is reported loudly with exit code 1, and running the
 * command again (idempotent) invalidates again. `takedown lift` invalidates nothing: it shows nothing
 * again by itself — the next sync commits the objects, and their cached 404/410 lasts ≤ 60 s.
 */

function idsOf(values: { ids?: string[] }): string[] {
  return (values.ids ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

function depsOf(rt: LocalRuntime): TakedownDeps {
  return {
    clients: rt.clients,
    tables: {
      sources: rt.env.SOURCES_TABLE,
      state: rt.env.STATE_TABLE,
      documents: rt.env.DOCUMENTS_TABLE,
      mirror: mirrorTablePlacement(rt.env),
    },
    bucket: rt.env.BUCKET,
  };
}

export async function tombstoneCommand(
  rt: LocalRuntime,
  values: { body?: string; ids?: string[]; source?: string; note?: string },
): Promise<CommandResult> {
  // The table takes exactly one of --body and --ids (cli/commands/index.ts, `oneOf`).
  const ids = idsOf(values);
  const options = {
    by: 'cli',
    ...(values.source !== undefined ? { sourceId: values.source } : {}),
    ...(values.note !== undefined ? { note: values.note } : {}),
  };
  const result =
    values.body !== undefined
      ? await tombstoneBody(depsOf(rt), values.body, options)
      : await tombstoneIds(depsOf(rt), ids, options);
  // A new reference per run: a repeated command is a new invalidation (the CDN may have cached again).
  const invalidation = await invalidateAfterTakedown(
    rt.cdn ?? recordingInvalidator(),
    result.change,
    `takedown-${new Date().toISOString()}`,
  );
  const total = Object.values(result.tombstoned).reduce((a, b) => a + b, 0);
  const text = [
    `tombstoned ${total} object(s)${result.body ? ` of body ${result.body}` : ''} in ${result.sourceIds.join(', ') || 'no source'}` +
      ` — hidden from every output now, kept for audit (OPT-2)`,
    ...Object.entries(result.tombstoned).map(([type, n]) => `  ${type}: ${n}`),
  ];
  if (result.alreadyDeleted > 0) text.push(`  already deleted before: ${result.alreadyDeleted}`);
  if (result.documents > 0) text.push(`  documents flagged: ${result.documents}`);
  if (result.embedders > 0) text.push(`  objects rewritten without them: ${result.embedders}`);
  if (result.notFound.length > 0) text.push(`  not in the mirror: ${result.notFound.join(', ')}`);
  if (result.registered.length > 0)
    text.push(`  in force until lifted (OPT-5): ${result.registered.length} takedown(s) recorded`);
  const unrecorded = result.body === null ? ids.filter((id) => !result.registered.includes(id)) : [];
  if (unrecorded.length > 0)
    text.push(
      `  NOT recorded — no source's systemUrl is on their host and no mirror holds them: ${unrecorded.join(', ')}`,
    );
  for (const invalid of result.invalidSources ?? []) {
    text.push(
      `  WARNING: Sources item ${invalid.sourceId} is invalid (${invalid.problems.map((p) => `${p.field}: ${p.message}`).join('; ')});` +
        ' the takedown is recorded for it all the same and holds once the item is fixed (OPT-5)',
    );
  }
  if (result.body)
    text.push(`  physical deletion on request: ingestor purge-deleted --body ${result.body} (OPT-3)`);
  text.push(...invalidationText(invalidation));
  // --ids that matched nothing is an operator's typo worth an exit code; a body is marked in any case.
  const nothing = result.body === null && total + result.alreadyDeleted + result.registered.length === 0;
  return { text, json: { ...result, invalidation }, exitCode: nothing || !invalidation.ok ? 1 : 0 };
}

function invalidationText(outcome: InvalidationOutcome): string[] {
  if (!outcome.ok) {
    return [
      `  WARNING: CDN INVALIDATION FAILED (${outcome.error.code}: ${outcome.error.message}) — the takedown` +
        ` stands (recorded above), but cached copies of ${outcome.paths.length} path(s) may be served for up` +
        ' to 5 min: run the same command again to invalidate again (OPT-2)',
    ];
  }
  if (outcome.paths.length === 0) return [];
  return outcome.kind === 'cloudfront'
    ? [`  CDN: invalidated ${outcome.paths.length} path(s) in ${outcome.batches} CloudFront invalidation(s)`]
    : [`  CDN: none in front locally — would invalidate ${outcome.paths.length} path(s) (see --json)`];
}

export async function purgeDeletedCommand(
  rt: LocalRuntime,
  values: { body: string; source?: string; yes?: boolean },
): Promise<CommandResult> {
  // --body is required by the command table (the parser refuses a line without it).
  const result = await purgeDeleted(depsOf(rt), values.body, {
    yes: values.yes === true,
    by: 'cli',
    ...(values.source !== undefined ? { sourceId: values.source } : {}),
  });
  const { counts } = result;
  const objects = Object.entries(counts).filter(([k, n]) => k !== 'files' && k !== 'texts' && n > 0);
  const text = [
    result.dryRun
      ? `preview — would delete for body ${result.body} (${result.sourceId}):`
      : `deleted for body ${result.body} (${result.sourceId}):`,
    ...objects.map(([type, n]) => `  ${type}: ${n}`),
    `  file copies (files/…): ${counts.files}`,
    `  texts (text/…): ${counts.texts}`,
    `  document records: ${result.documents}`,
  ];
  if (result.dryRun) text.push(`delete with: ingestor purge-deleted --body ${result.body} --yes (OPT-3)`);
  return {
    text,
    json: {
      body: result.body,
      sourceId: result.sourceId,
      dryRun: result.dryRun,
      counts,
      documents: result.documents,
    },
  };
}

/** `takedown lift --body <slug> | --ids <id,…>` (OPT-5): only an operator ends a takedown. */
export async function liftCommand(
  rt: LocalRuntime,
  values: { body?: string; ids?: string[]; source?: string },
): Promise<CommandResult> {
  // The table takes `lift` and exactly one of --body and --ids (cli/commands/index.ts, `oneOf`).
  const ids = idsOf(values);
  const result = await liftTakedown(depsOf(rt), {
    by: 'cli',
    ...(values.body !== undefined ? { body: values.body } : { ids }),
    ...(values.source !== undefined ? { sourceId: values.source } : {}),
  });
  const text = [
    `TAKEDOWN LIFTED: ${result.lifted} takedown(s)${result.body ? ` of body ${result.body}` : ''} in ${result.sourceIds.join(', ') || 'no source'}`,
    '  the next sync mirrors these objects again if the source still publishes them (OPT-5)',
  ];
  if (result.body) text.push(`  the body stays unlisted until: ingestor bodies list ${result.body} (ONB-4)`);
  if (result.notTakenDown.length > 0) text.push(`  not taken down: ${result.notTakenDown.join(', ')}`);
  // OPT-5: another operator's takedown of these came in while lifting; it wins, the lift did not end it.
  if (result.renewed.length > 0) {
    text.push(
      `  STILL TAKEN DOWN (taken down again while lifting; lift again if still meant): ${result.renewed.join(', ')}`,
    );
  }
  return { text, json: result, exitCode: result.lifted === 0 || result.renewed.length > 0 ? 1 : 0 };
}
