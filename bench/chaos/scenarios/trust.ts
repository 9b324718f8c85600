import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { changeSource } from '../../../cli/commands/sources';
import { tombstoneCommand } from '../../../cli/commands/takedown';
import { snapshotMirror } from '../observe';
import type { Scenario } from '../scenario';
import { CHAOS_T0, type Deployment } from '../stack';
import { operator, SOURCE, syncedSource } from './support';

/**
 * Trust under hand edits and host spellings (issue 25 points 1 and 2): a municipality's takedown never
 * depends on a config typo (OPT-5), and `ris.example.de.` is the host `ris.example.de` for the pace
 * (RATE-2), the host-wide settings (OPT-4) and takedown ownership (OPT-5). The operator's commands run
 * through the CLI's command functions; the syncs through planner and queue.
 */
const DAY_MS = 24 * 60 * 60_000;

/** `paper /oparl/v1/bodies/1/paper/4`: a mirror snapshot's name of an id of `council`. */
function nameOf(type: string, id: string): string {
  return `${type} ${new URL(id).pathname}`;
}

/** The Sources item as an on-call engineer leaves it after a hand edit in the DynamoDB console. */
async function handEdit(d: Deployment, item: Record<string, unknown>): Promise<void> {
  await d.admin.doc.send(new PutCommand({ TableName: d.env.SOURCES_TABLE, Item: item }));
}

export const TRUST_SCENARIOS: Scenario[] = [
  {
    name: 'takedown-while-item-invalid',
    rules: ['OPT-5', 'OPT-2'],
    holds:
      'The Sources item broken by hand (requestIntervalSeconds "five"), then tombstone --ids <a paper the council published after the last sync>: recorded (exit 0, loudly); after the typo is fixed the next full sync does not mirror the paper, a paper published with it is mirrored.',
    async run(ctx) {
      const { council, d, instance } = await syncedSource(ctx);
      const [wanted, control] = await council.mutate([
        { op: 'add', list: 'paper', body: 1 },
        { op: 'add', list: 'paper', body: 1 },
      ]);
      if (!ctx.check(wanted !== undefined && control !== undefined, 'the council added no papers')) return;
      await handEdit(d, {
        sourceId: SOURCE,
        systemUrl: council.systemUrl,
        active: true,
        requestIntervalSeconds: 'five',
      });
      const warn = console.warn;
      console.warn = () => {};
      const down = await tombstoneCommand(operator(d), {
        ids: [wanted as string],
        note: 'chaos: takedown while the item is invalid',
      }).finally(() => {
        console.warn = warn;
      });
      ctx.notes.tombstoneExit = down.exitCode ?? 0;
      ctx.check((down.exitCode ?? 0) === 0, `tombstone exited ${down.exitCode}: ${down.text.join(' ')}`);
      ctx.check(
        down.text.some((l) => l.includes(`Sources item ${SOURCE} is invalid`)),
        'the output did not name the invalid item',
      );
      // On-call fixes the typo; the next night's full sync reads every list while the council publishes both.
      await handEdit(d, { sourceId: SOURCE, systemUrl: council.systemUrl, active: true });
      d.clock.ms = CHAOS_T0 + DAY_MS;
      await d.tick();
      await d.drain(instance);
      const after = await snapshotMirror(d, SOURCE, council.url);
      const wantedName = nameOf('paper', wanted as string);
      if (after.liveIds.has(wantedName)) {
        ctx.figures.revivedTakedowns += 1;
        ctx.notes.revived = [wantedName];
      }
      const controlName = nameOf('paper', control as string);
      ctx.check(after.liveIds.has(controlName), 'the control paper was not mirrored');
      // Against a clean run of the council as it was: both added papers are judged above.
      await ctx.compare(d, SOURCE, council, {}, (name) => name === wantedName || name === controlName);
    },
  },
  {
    name: 'hostname-spellings',
    rules: ['RATE-2', 'OPT-4', 'OPT-5'],
    holds:
      'One source at 2 s on `<host>`, its sibling on `<host>.` (trailing dot): the sibling is paced at 2 s, `sources set` on the one reaches the other, and a takedown of a paper not mirrored yet is recorded for both, so the sibling never mirrors it.',
    async run(ctx) {
      // One object per list: each request is owed 2 s, so the run stays short.
      const council = await ctx.council({ objectsPerList: 1 }, 2_000);
      const d = await ctx.deploy();
      const dotted = new URL(council.systemUrl);
      dotted.hostname = `${dotted.hostname}.`;
      // The strict source is inactive: only its host maximum acts (RATE-2 counts inactive sources too).
      await d.addSource({
        sourceId: 'strict',
        systemUrl: council.systemUrl,
        active: false,
        requestIntervalSeconds: 2,
      });
      await d.addSource({ sourceId: 'dotted', systemUrl: dotted.href });
      const set = await changeSource(operator(d), {
        sourceId: 'strict',
        set: ['fileFetching=false'],
        only: false,
      });
      const alsoUpdated = (set.json as { alsoUpdated?: string[] }).alsoUpdated ?? [];
      ctx.notes.alsoUpdated = alsoUpdated;
      ctx.check(
        alsoUpdated.includes('dotted'),
        'sources set on the host did not reach the dotted sibling (OPT-4)',
      );
      const [paper] = await council.mutate({ op: 'add', list: 'paper', body: 1 });
      const down = await tombstoneCommand(operator(d), { ids: [paper as string], note: 'chaos: spellings' });
      const owners = (down.json as { sourceIds?: string[] }).sourceIds ?? [];
      ctx.notes.owners = owners;
      ctx.check(owners.includes('dotted'), 'the takedown was not recorded for the dotted sibling (OPT-5)');
      const instance = await d.instance();
      await d.tick();
      await d.drain(instance);
      const after = await snapshotMirror(d, 'dotted', council.url);
      const name = nameOf('paper', paper as string);
      if (after.liveIds.has(name)) {
        ctx.figures.revivedTakedowns += 1;
        ctx.notes.revived = [name];
      }
      ctx.notes.mirrored = after.liveIds.size;
      ctx.check(after.liveIds.size > 3, 'the dotted sibling mirrored (almost) nothing');
    },
  },
];
