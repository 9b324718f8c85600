import type { WireRequest } from '../council-process';
import type { ChaosCouncil } from '../councils';
import { snapshotMirror } from '../observe';
import type { Scenario, ScenarioContext } from '../scenario';
import { CHAOS_T0, type Deployment } from '../stack';
import {
  bodySlug,
  countRevived,
  documentItems,
  documentPasses,
  filePathsOf,
  listBody,
  purge,
  SOURCE,
  sourceOnCouncil,
  syncedSource,
  takenDown,
  tombstoneBody,
  tombstoneIds,
} from './support';

/**
 * Takedowns (OPT-2, OPT-3, OPT-5; issue 13 #1): once an operator took an object or a body down, no
 * later purge, sync, file pass, deletion check or preview may bring it back or fetch its files. The
 * operator's commands run through the CLI's command functions; the syncs through planner and queue.
 */
const DAY_MS = 24 * 60 * 60_000;

/** The next night's full sync (FULL-1): every list read again while the council still publishes all. */
async function nextNightSync(d: Deployment, instance: Awaited<ReturnType<Deployment['instance']>>) {
  d.clock.ms = CHAOS_T0 + DAY_MS;
  await d.tick();
  await d.drain(instance);
}

/** File requests to taken-down files, or any request for `paths`, after `sinceEpochMs`. */
function forbidAfter(
  ctx: ScenarioContext,
  council: ChaosCouncil,
  sinceEpochMs: number,
  match: (r: WireRequest) => boolean,
) {
  ctx.forbid(council, (r) => r.epochMs >= sinceEpochMs && match(r));
}

function takedown(spec: {
  name: string;
  holds: string;
  rules: string[];
  target: 'paper' | 'body';
  purge: boolean;
  passes: { files?: boolean; deletion?: boolean };
}): Scenario {
  return {
    name: spec.name,
    rules: spec.rules,
    defect: 1,
    holds: spec.holds,
    async run(ctx) {
      const { council, d, instance } = await syncedSource(ctx);
      const slug = await bodySlug(d);
      await listBody(d, slug);
      if (spec.passes.files) await documentPasses(ctx, d, { files: true });
      const before = await snapshotMirror(d, SOURCE, council.url);
      await council.settle();
      const at = Date.now();
      if (spec.target === 'paper') await tombstoneIds(d, [`${council.url}/oparl/v1/bodies/1/paper/1`]);
      else await tombstoneBody(d, slug);
      const after = await snapshotMirror(d, SOURCE, council.url);
      // A body's takedown covers everything of the body (OPT-5); a paper's the paper and what it embeds.
      const down =
        spec.target === 'body'
          ? new Set([...before.liveIds].filter((name) => !name.startsWith('system ')))
          : takenDown(before, after);
      ctx.notes.takenDown = down.size;
      if (!ctx.check(down.size > 0, 'the takedown hid nothing')) return;
      const stillLive = [...down].filter((name) => after.liveIds.has(name));
      ctx.check(
        stillLive.length === 0,
        `${stillLive.length} objects still live right after the takedown (OPT-2: at once)`,
      );
      const files = filePathsOf(down);
      forbidAfter(ctx, council, at, (r) =>
        spec.target === 'body' ? r.path.startsWith('/files/') : files.has(r.path.split('?')[0] ?? ''),
      );
      if (spec.purge) await purge(d, slug);
      await nextNightSync(d, instance);
      // Past DEL_SAMPLE_INTERVAL_MS (7 days): stored documents are due for their deletion-check samples.
      await documentPasses(ctx, d, spec.passes, 8 * DAY_MS);
      await countRevived(ctx, d, council, down);
      await ctx.compare(d, SOURCE, council, {}, (name) => down.has(name));
    },
  };
}

export const TAKEDOWN_SCENARIOS: Scenario[] = [
  takedown({
    name: 'takedown-paper-purge-sync',
    rules: ['OPT-2', 'OPT-3', 'OPT-5'],
    holds:
      'tombstone --ids <paper>, purge-deleted --body --yes, then a full sync and a files pass while the council still publishes the paper: the paper and its files stay down, its file is never fetched again.',
    target: 'paper',
    purge: true,
    passes: { files: true },
  }),
  takedown({
    name: 'takedown-paper-sync',
    rules: ['OPT-2', 'OPT-5'],
    holds:
      'tombstone --ids <paper>, then a full sync and a files pass: the paper stays down, its file is not fetched.',
    target: 'paper',
    purge: false,
    passes: { files: true },
  }),
  takedown({
    name: 'takedown-body-purge-sync',
    rules: ['OPT-2', 'OPT-3', 'OPT-5'],
    holds:
      'tombstone --body, purge-deleted --body --yes, then a full sync and a files pass: nothing of the body comes back, none of its files is fetched.',
    target: 'body',
    purge: true,
    passes: { files: true },
  }),
  takedown({
    name: 'takedown-body-sync',
    rules: ['OPT-2', 'OPT-5'],
    holds:
      'tombstone --body, then a full sync, a files pass and a deletion check: nothing of the body comes back.',
    target: 'body',
    purge: false,
    passes: { files: true, deletion: true },
  }),
  takedown({
    name: 'takedown-paper-deletion-check',
    rules: ['OPT-5', 'DEL-2'],
    holds:
      'tombstone --ids <paper> after its files were stored: the deletion check neither asks for nor restores them.',
    target: 'paper',
    purge: false,
    passes: { files: true, deletion: true },
  }),
  {
    name: 'takedown-during-sync',
    rules: ['OPT-2', 'OPT-5'],
    defect: 1,
    holds:
      "tombstone --body issued while a sync of that source runs wins over the sync's later writes: when the run ends nothing of the body is live, and no file of it is fetched afterwards.",
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      const instance = await d.instance();
      await d.tick();
      const m = await d.receive();
      const running = instance.process(m?.body ?? '');
      // After the first list pages: the body and some of its objects are mirrored, most are not yet.
      await council.arrival((r) => r.path.includes('/person'));
      const slug = await bodySlug(d);
      const at = Date.now();
      await tombstoneBody(d, slug);
      ctx.forbid(council, (r) => r.epochMs >= at && r.path.startsWith('/files/'));
      await running;
      await d.ack(m?.receiptHandle ?? '');
      await listBody(d, slug).catch(() => undefined);
      await documentPasses(ctx, d, { files: true });
      const after = await snapshotMirror(d, SOURCE, council.url);
      const live = [...after.liveIds].filter((name) => !name.startsWith('system '));
      ctx.figures.revivedTakedowns += live.length;
      if (live.length > 0) ctx.notes.liveAfterTakedown = live.slice(0, 5);
    },
  },
  {
    name: 'takedown-preview',
    rules: ['OPT-5', 'PRV-1'],
    defect: 1,
    holds:
      "A taken-down paper's file asked for through the preview is neither fetched from the council nor served.",
    async run(ctx) {
      const { council, d } = await syncedSource(ctx);
      const before = await snapshotMirror(d, SOURCE, council.url);
      await council.settle();
      const at = Date.now();
      await tombstoneIds(d, [`${council.url}/oparl/v1/bodies/1/paper/1`]);
      const down = takenDown(before, await snapshotMirror(d, SOURCE, council.url));
      const files = filePathsOf(down);
      forbidAfter(ctx, council, at, (r) => files.has(r.path.split('?')[0] ?? ''));
      const items = (await documentItems(d)).filter((i) => files.has(new URL(String(i.url)).pathname));
      if (!ctx.check(items.length > 0, 'no document item of the taken-down paper')) return;
      const { openPreview } = await import('./preview');
      const statuses: number[] = [];
      for (const item of items)
        statuses.push((await openPreview(ctx, d, String(item.docId), '203.0.113.7')).status);
      ctx.notes.previewStatuses = statuses;
      ctx.check(
        statuses.every((s) => s !== 200),
        `the preview served a taken-down file (${statuses.join(', ')})`,
      );
    },
  },
];
