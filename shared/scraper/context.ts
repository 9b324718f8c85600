import type { ScrapeAdapter } from './adapter';
import type { ScrapePolicy } from './constants';
import type { MirrorTypeName, ShapeContext, ShapedObject } from './oparl-shape';
import type { PageReader } from './page-reader';
import type { ScrapeCursor, ScrapeStateStore, ScrapeTask } from './state';
import type { CalendarPage } from './types';

/**
 * What the kinds of work of a scrape (calendar months, meeting, paper, roster pages, commits) are given
 * by the engine: the run's cursor and policy, its page reader, its State store and the engine's writes
 * to the mirror. Built once per run by the engine (`engine.ts`).
 */
export interface ScrapeContext {
  readonly kind: 'incremental' | 'full';
  readonly policy: ScrapePolicy;
  readonly adapter: ScrapeAdapter;
  readonly state: ScrapeStateStore;
  /** The run frame's cursor (read anew each time: the frame adopts it when the run begins). */
  readonly cursor: ScrapeCursor;
  /** What shaping needs of the source's body. */
  readonly shaping: ShapeContext;
  readonly pages: PageReader;
  nowMs(): number;
  nowIso(): string;
  log(event: string, fields?: Record<string, unknown>): void;
  /** Writes the cursor (optimistic lock): the run's commit point. */
  checkpoint(): Promise<void>;
  /** A calendar page was read: its heading names the body, its navigation the organization lists. */
  calendarRead(calendar: CalendarPage): Promise<void>;
  /** Owner objects: written when their content differs from the mirror's. */
  writeOwned(objects: ShapedObject[], pageUrl: string): Promise<void>;
  /** Stubs: created only when the mirror holds nothing for them; returns the created ones. */
  writeStubs(objects: ShapedObject[], pageUrl: string): Promise<ShapedObject[]>;
  tombstone(refs: { id: string; type: MirrorTypeName }[], pageUrl: string): Promise<void>;
}

/** Removes the task at the front and puts its children (and commits) in its place; then checkpoints. */
export async function replaceFront(ctx: ScrapeContext, children: ScrapeTask[]): Promise<void> {
  ctx.cursor.tasks.shift();
  ctx.cursor.tasks.unshift(...children);
  await ctx.checkpoint();
}

/**
 * A child page failed: its parent meeting must be read again next run, so neither the meeting's page
 * state nor its calendar row is committed.
 */
export function taintMeeting(tasks: ScrapeTask[], meetingUrl: string): void {
  for (let i = tasks.length - 1; i >= 0; i--) {
    const t = tasks[i];
    if (t?.op === 'commit-page' && t.state.url === meetingUrl) tasks.splice(i, 1);
    if (t?.op === 'commit-month') {
      for (const [key, mark] of Object.entries(t.rows)) if (mark.u === meetingUrl) delete t.rows[key];
    }
  }
}

/** The meeting's page is not public (or gone): its calendar row is marked, no revisits until it changes. */
export function markRowNotPublic(tasks: ScrapeTask[], meetingUrl: string): void {
  for (const t of tasks) {
    if (t.op !== 'commit-month') continue;
    for (const mark of Object.values(t.rows)) if (mark.u === meetingUrl) mark.n = true;
  }
}
