import { bodiesCommand } from '../../../cli/commands/bodies';
import { purgeDeletedCommand, tombstoneCommand } from '../../../cli/commands/takedown';
import type { LocalRuntime } from '../../../cli/local/runtime';
import type { IngestorEnv } from '../../../shared/config';
import { composeDocuments, DocumentsStore, runDeletionCheck, runFilesPass } from '../../../shared/documents';
import { createTestResolver } from '../../../shared/net';
import { listBodies } from '../../../shared/onboarding';
import type { ChaosCouncil } from '../councils';
import { type MirrorSnapshot, snapshotMirror } from '../observe';
import type { ScenarioContext } from '../scenario';
import type { Deployment } from '../stack';

/**
 * The operator's and the document functions' front doors for the scenarios: the CLI commands
 * (`tombstone`, `purge-deleted`, `bodies list`) on the deployment's tables, and the files and
 * deletion-check passes built by their production composition root.
 */
export const SOURCE = 'src';

/** A council on its own host and a deployment with one active source on it. */
export async function sourceOnCouncil(ctx: ScenarioContext, overrides: Partial<IngestorEnv> = {}) {
  const council = await ctx.council();
  const d = await ctx.deploy(overrides);
  await d.addSource({ sourceId: SOURCE, systemUrl: council.systemUrl });
  return { council, d };
}

/** …and its first full sync done (planner tick at T0, inside the full-sync window; queue drained). */
export async function syncedSource(ctx: ScenarioContext) {
  const { council, d } = await sourceOnCouncil(ctx);
  const instance = await d.instance();
  await d.tick();
  await d.drain(instance);
  return { council, d, instance };
}

/** The CLI's local runtime over a deployment (the commands take nothing else). */
export function operator(d: Deployment): LocalRuntime {
  return { env: d.env, clients: d.admin, dataDir: '', close: async () => {} };
}

export async function bodySlug(d: Deployment, sourceId = SOURCE): Promise<string> {
  const rows = await listBodies(
    d.admin.doc,
    { sources: d.env.SOURCES_TABLE, state: d.env.STATE_TABLE },
    sourceId,
  );
  const slug = rows[0]?.slug;
  if (!slug) throw new Error(`no body of ${sourceId}`);
  return slug;
}

export async function tombstoneIds(d: Deployment, ids: string[]): Promise<void> {
  const r = await tombstoneCommand(operator(d), { ids, note: 'chaos: takedown requested' });
  if (r.exitCode) throw new Error(`tombstone failed: ${r.text.join(' ')}`);
}

export async function tombstoneBody(d: Deployment, slug: string): Promise<void> {
  const r = await tombstoneCommand(operator(d), { body: slug, note: 'chaos: opt-out of the body' });
  if (r.exitCode) throw new Error(`tombstone failed: ${r.text.join(' ')}`);
}

export async function purge(d: Deployment, slug: string): Promise<void> {
  await purgeDeletedCommand(operator(d), { body: slug, yes: true });
}

export async function listBody(d: Deployment, slug: string): Promise<void> {
  await bodiesCommand(operator(d), ['list', slug], { force: false });
}

/**
 * One files pass and/or one deletion check, as the scheduled functions run them. Their `now` is the
 * wall clock (plus `laterMs`): the sync engine stamps document items with the wall clock too.
 */
export async function documentPasses(
  ctx: ScenarioContext,
  d: Deployment,
  which: { files?: boolean; deletion?: boolean },
  laterMs = 0,
): Promise<void> {
  const runtime = await composeDocuments(d.env, { clients: d.admin, resolver: createTestResolver() });
  const now = () => new Date(Date.now() + laterMs);
  try {
    if (which.files) ctx.notes.files = (await runFilesPass(runtime.deps, { now: now() })).files;
    if (which.deletion)
      ctx.notes.deletionChecks = (await runDeletionCheck(runtime.deps, { now: now() })).checks;
  } finally {
    await runtime.close();
  }
}

/** The source's Documents items, through the store the document functions use. */
export async function documentItems(d: Deployment, sourceId = SOURCE): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const store = new DocumentsStore(d.admin.doc, d.env.DOCUMENTS_TABLE);
  for await (const item of store.listBySource(sourceId))
    items.push(item as unknown as Record<string, unknown>);
  return items;
}

/** Objects live before and taken down after: what a takedown hid (the object and what it embeds). */
export function takenDown(before: MirrorSnapshot, after: MirrorSnapshot): Set<string> {
  return new Set([...before.liveIds].filter((name) => !after.liveIds.has(name)));
}

/** Revived: taken-down objects live again in the mirror. */
export async function countRevived(
  ctx: ScenarioContext,
  d: Deployment,
  council: ChaosCouncil,
  down: Set<string>,
): Promise<void> {
  const now = await snapshotMirror(d, SOURCE, council.url);
  const revived = [...down].filter((name) => now.liveIds.has(name));
  ctx.figures.revivedTakedowns += revived.length;
  if (revived.length > 0) ctx.notes.revived = revived.slice(0, 5);
}

/** `file /oparl/v1/bodies/1/file/3` → `/files/1/3.pdf` (the fake council's access URL of that file). */
export function filePathsOf(names: Iterable<string>): Set<string> {
  const paths = new Set<string>();
  for (const name of names) {
    const m = /^file \/oparl\/v1\/bodies\/(\d+)\/file\/(\d+)$/.exec(name);
    if (m) paths.add(`/files/${m[1]}/${m[2]}.pdf`);
  }
  return paths;
}
