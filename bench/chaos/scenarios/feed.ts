import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { purgeDeletedCommand, tombstoneCommand } from '../../../cli/commands/takedown';
import type { LocalRuntime } from '../../../cli/local/runtime';
import {
  type ChangeEvent,
  type ChangeEventKind,
  createFeedClients,
  destroyFeedClients,
} from '../../../shared/changes';
import { apiObjectPath, MIRROR_TYPES, type MirrorIndexEntry, MirrorStore } from '../../../shared/mirror';
import { type AwsFaults, injectAwsFaults, untilCrashed } from '../../../test/support/aws-faults';
import type { Scenario, ScenarioContext } from '../scenario';
import { CHAOS_T0, type Deployment } from '../stack';
import { bodySlug, SOURCE, sourceOnCouncil } from './support';

/**
 * The change feed's takedown promise (issue 16, OPT-3, OPT-5): an operator command that dies between
 * its commits and the feed's flush — the instance freezes right after the n-th commit landed at the
 * peer (client middleware around the real dynalite, `crashAfter`) — loses no `takendown` or `purged`
 * event: the next process (here the next night's sync on a cold instance) delivers them from the outbox.
 * The feed is the local sink, a JSON lines file per deployment. `lostFeedEvents`: committed marks or
 * removals with no event in the feed; a `new`/`modified` event after an object's takedown counts as a
 * revived takedown (what a consumer that follows only the feed would show again).
 */
const DAY_MS = 24 * 60 * 60_000;

/** Commits the command makes before the instance dies: some events are buffered, none flushed. */
const COMMITS_BEFORE_CRASH = 3;

interface OperatorProcess {
  runtime: LocalRuntime;
  faults: AwsFaults;
}

/** An operator's CLI process on the deployment, with its own clients and change feed. */
function operatorProcess(d: Deployment): OperatorProcess {
  const clients = createFeedClients(d.env);
  const faults = injectAwsFaults(clients);
  return {
    faults,
    runtime: { env: d.env, clients, dataDir: '', close: async () => destroyFeedClients(clients) },
  };
}

/** Freezes the instance right after the n-th `command` for which `commit` holds has landed. */
function crashAfterCommits(
  faults: AwsFaults,
  command: RegExp,
  commit: (input: Record<string, unknown>) => boolean,
): void {
  let seen = 0;
  faults.crashAfter({
    service: 'dynamodb',
    command,
    when: (input) => commit(input) && ++seen === COMMITS_BEFORE_CRASH,
  });
}

async function indexEntries(d: Deployment): Promise<MirrorIndexEntry[]> {
  const mirror = new MirrorStore(d.admin, { bucket: d.env.BUCKET, stateTable: d.env.STATE_TABLE });
  const out: MirrorIndexEntry[] = [];
  for (const type of MIRROR_TYPES)
    for await (const entry of mirror.listAll(SOURCE, type, { consistent: true })) out.push(entry);
  return out;
}

const apiIdOf = (e: MirrorIndexEntry) => apiObjectPath(e.sourceId, e.type, e.id);

async function feedOf(file: string): Promise<ChangeEvent[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ChangeEvent);
}

/** The next night's full sync on a cold instance (a new process: its first flush drains the outbox). */
async function nextNightOnColdInstance(d: Deployment): Promise<void> {
  d.clock.ms = CHAOS_T0 + DAY_MS;
  const instance = await d.instance();
  await d.tick();
  await d.drain(instance);
}

/** Committed changes of `kind` missing from the feed; `new`/`modified` after a takedown in it. */
function judge(ctx: ScenarioContext, events: ChangeEvent[], kind: ChangeEventKind, committed: string[]) {
  const delivered = new Set(events.filter((e) => e.kind === kind).map((e) => e.apiId));
  const lost = committed.filter((apiId) => !delivered.has(apiId));
  ctx.figures.lostFeedEvents += lost.length;
  ctx.notes.committed = committed.length;
  ctx.notes.feedEvents = events.length;
  if (lost.length > 0) ctx.notes.lostFeedEvents = lost.slice(0, 5);
  const down = new Set<string>();
  const revived: string[] = [];
  for (const e of events) {
    if (e.kind === 'takendown' || e.kind === 'purged') down.add(e.apiId);
    else if ((e.kind === 'new' || e.kind === 'modified') && down.has(e.apiId)) revived.push(e.apiId);
  }
  ctx.figures.revivedTakedowns += revived.length;
  if (revived.length > 0) ctx.notes.revivedInFeed = revived.slice(0, 5);
}

function feedCrash(spec: { name: string; holds: string; rules: string[]; purge: boolean }): Scenario {
  return {
    name: spec.name,
    rules: spec.rules,
    holds: spec.holds,
    async run(ctx) {
      const file = join(tmpdir(), `chaos-feed-${randomUUID()}.jsonl`);
      ctx.onClose(() => rm(file, { force: true }));
      const { d } = await sourceOnCouncil(ctx, { INGESTOR_CHANGE_FILE: file });
      const first = await d.instance();
      await d.tick();
      await d.drain(first);
      const slug = await bodySlug(d);
      const operator = operatorProcess(d);
      ctx.onClose(() => operator.runtime.close());
      const before = await indexEntries(d);
      if (spec.purge) {
        // A healthy command first (its takedown events in the feed), then the purge that dies.
        const earlier = operatorProcess(d);
        const done = await tombstoneCommand(earlier.runtime, {
          body: slug,
          note: 'chaos: opt-out of the body',
        });
        await earlier.runtime.close();
        if (!ctx.check(!done.exitCode, `tombstone failed: ${done.text.join(' ')}`)) return;
        crashAfterCommits(operator.faults, /DeleteItem/, (input) =>
          JSON.stringify(input.Key ?? {}).includes('MIRROR#'),
        );
        await untilCrashed(operator.faults, purgeDeletedCommand(operator.runtime, { body: slug, yes: true }));
      } else {
        crashAfterCommits(operator.faults, /UpdateItem/, (input) =>
          String(input.UpdateExpression ?? '').includes('takedown = :t'),
        );
        await untilCrashed(
          operator.faults,
          tombstoneCommand(operator.runtime, { body: slug, note: 'chaos: opt-out, the command dies' }),
        );
      }
      const afterCrash = await indexEntries(d);
      // What the dead command committed: marks on the index, or entries removed from it.
      const committed = spec.purge
        ? before.filter((e) => !afterCrash.some((a) => a.type === e.type && a.id === e.id)).map(apiIdOf)
        : afterCrash.filter((e) => e.takedown !== undefined).map(apiIdOf);
      if (
        !ctx.check(committed.length === COMMITS_BEFORE_CRASH, `${committed.length} commits before the crash`)
      )
        return;
      await nextNightOnColdInstance(d);
      judge(ctx, await feedOf(file), spec.purge ? 'purged' : 'takendown', committed);
    },
  };
}

export const FEED_SCENARIOS: Scenario[] = [
  feedCrash({
    name: 'takedown-feed-crash-before-flush',
    rules: ['OPT-5', 'OPT-2'],
    holds:
      'tombstone --body dies right after its third mark committed, before the change feed flushed: every committed mark reaches the feed as `takendown` (the next process drains the outbox), and no `new`/`modified` follows a takedown in the feed.',
    purge: false,
  }),
  feedCrash({
    name: 'takedown-feed-crash-purge-before-flush',
    rules: ['OPT-3', 'OPT-5'],
    holds:
      'purge-deleted --body --yes dies right after its third index entry was removed, before the change feed flushed: every removal reaches the feed as `purged`, and the next full sync revives nothing in the feed.',
    purge: true,
  }),
];
