import { replaceFront, type ScrapeContext } from './context';
import { shapeOrganization, shapePerson } from './oparl-shape';
import { processShapedPage } from './page-objects';
import type { PageState, ScrapeTask } from './state';
import type { OrganizationListEntry } from './types';

/**
 * Rosters: the organization lists (full scrapes), an organization's page with its memberships (asked
 * once per run, and only when never read or read longer ago than the policy's refresh), a person's page.
 */

type Task<Op extends ScrapeTask['op']> = Extract<ScrapeTask, { op: Op }>;

/**
 * The organizations of a list page to read now: not asked yet in this run, and never read or read
 * `refreshMs` ago or longer. `asked` is the run's list; the chosen ones are added to it. Pure.
 */
export function organizationsToAsk(
  entries: OrganizationListEntry[],
  known: Map<string, PageState>,
  asked: string[],
  { nowMs, refreshMs }: { nowMs: number; refreshMs: number },
): ScrapeTask[] {
  const tasks: ScrapeTask[] = [];
  for (const entry of entries) {
    const state = known.get(entry.id);
    if (asked.includes(entry.id)) continue;
    if (state && nowMs - Date.parse(state.fetchedAt) < refreshMs) continue;
    asked.push(entry.id);
    tasks.push({ op: 'organization', url: entry.id, kind: entry.kind });
  }
  return tasks;
}

export async function organizationListTask(
  ctx: ScrapeContext,
  task: Task<'organization-list'>,
): Promise<void> {
  const outcome = await ctx.pages.read(task.url, 'organizations');
  if (outcome.kind !== 'page') {
    if (outcome.kind === 'failure') ctx.pages.failed(outcome, 'organizations');
    return replaceFront(ctx, []);
  }
  const entries = ctx.adapter.parseOrganizationList(outcome.html, task.url, task.kind);
  const known = await ctx.state.getPages(entries.map((e) => e.id));
  const refreshMs = ctx.policy.rosterRefreshDays * 86_400_000;
  return replaceFront(
    ctx,
    organizationsToAsk(entries, known, ctx.cursor.organizationsAsked, { nowMs: ctx.nowMs(), refreshMs }),
  );
}

export async function organizationTask(ctx: ScrapeContext, task: Task<'organization'>): Promise<void> {
  const outcome = await ctx.pages.read(task.url, 'organization');
  if (outcome.kind !== 'page') {
    if (outcome.kind === 'failure') ctx.pages.failed(outcome, 'organization');
    if (outcome.kind === 'not-public') {
      ctx.cursor.totals.notPublic += 1;
      await ctx.state.putPage({
        url: task.url,
        kind: 'organization',
        objects: {},
        fetchedAt: ctx.nowIso(),
        notPublicSince: ctx.nowIso(),
      });
    }
    return replaceFront(ctx, []);
  }
  return processShapedPage(ctx, task.url, 'organization', () =>
    shapeOrganization(ctx.adapter.parseOrganization(outcome.html, task.url, task.kind), ctx.shaping),
  );
}

export async function personTask(ctx: ScrapeContext, task: Task<'person'>): Promise<void> {
  const outcome = await ctx.pages.read(task.url, 'person');
  if (outcome.kind !== 'page') {
    if (outcome.kind === 'failure') ctx.pages.failed(outcome, 'person');
    return replaceFront(ctx, []);
  }
  return processShapedPage(ctx, task.url, 'person', () =>
    shapePerson(ctx.adapter.parsePerson(outcome.html, task.url), ctx.shaping),
  );
}
