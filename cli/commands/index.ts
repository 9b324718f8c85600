import { type ArgsSpec, type Input, type InputOf, inputOf, type OptionTable } from '../args';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';
import type { BodiesArgs } from './bodies';
import type { FilesArgs } from './files';

/**
 * The operator CLI's command table, the one place a command is declared: its synopsis, its options
 * (typed flag / string / number, required, a line of help — `ingestor --help` and `ingestor <cmd>
 * --help` are generated from them) and its module, imported only when the command runs. `cli/args.ts`
 * parses a command line against these declarations once, into the command's typed input
 * (`InputOf<table>`), which the command's module takes as it is: nothing here converts an argument.
 * Nothing here may import a command module or the local stand-ins at load time — `ingestor --help` and
 * every usage error answer from this table alone.
 */
export interface RunContext {
  /** Positionals after the command name (a subcommand included). */
  args: string[];
  /** The parsed options by name (`demo-objects`); a command reads them through `inputOf(TABLE, …)`. */
  values: Input;
  json: boolean;
  /** Opened for `runtime` commands only (local peers under `--data`, or `--aws`). */
  rt: LocalRuntime;
}

export interface CommandSpec {
  name: string;
  /** Usage lines without the leading `ingestor `. */
  synopsis: string[];
  summary: string;
  /** Opens the local or AWS runtime (and accepts `--data`, `--allow-loopback`, `--aws`). */
  runtime: boolean;
  /** Options and arity without a subcommand; absent = a subcommand is required. */
  bare?: ArgsSpec;
  subcommands?: Record<string, ArgsSpec>;
  run(ctx: RunContext): Promise<CommandResult>;
}

/** The typed input of `table` in this invocation. */
const input = <T extends OptionTable>(table: T, ctx: RunContext): InputOf<T> => inputOf(table, ctx.values);
/** `--allow-loopback` of the runtime options, for the commands that fetch in local mode. */
const allowLoopback = (ctx: RunContext): boolean => ctx.values['allow-loopback'] === true;

const SOURCE = {
  source: { type: 'string', value: 'ID', help: 'only this source' },
} as const satisfies OptionTable;
const ONCE = {
  once: { type: 'flag', help: 'one pass now (the default; kept for scripts)' },
} as const satisfies OptionTable;
const FULL = {
  full: { type: 'flag', help: 'a full sync (FULL-8: own window, minimum distance)' },
} as const satisfies OptionTable;
const ONLY = {
  only: { type: 'flag', help: 'this source only, not the other sources on its server (OPT-4)' },
} as const satisfies OptionTable;

const START = {
  once: { type: 'flag', help: 'one planner tick, drain the queue, print a JSON summary, exit' },
  'demo-objects': {
    type: 'number',
    integer: true,
    min: 1,
    value: 'N',
    help: 'objects per list and body of the bundled demo (1…12, default 12): a shorter first start',
  },
} as const satisfies OptionTable;

const SOURCES_ADD = {
  id: { type: 'string', value: 'ID', help: 'source id (default: from the host name)' },
  name: { type: 'string', value: 'NAME', help: 'display name' },
  kind: { type: 'string', value: 'KIND', help: 'oparl (default) or scraper' },
  adapter: { type: 'string', value: 'A', help: 'scraper adapter (allris3, sessionnet)' },
} as const satisfies OptionTable;
const SOURCES_IMPORT = {
  activate: { type: 'flag', help: 'store the checked sources active (ONB-3)' },
} as const satisfies OptionTable;

const GEO_ADD = {
  body: {
    type: 'string',
    required: true,
    value: 'SLUG',
    help: 'the body the plans belong to (its slug, ONB-4)',
  },
  source: { type: 'string', value: 'ID', help: 'the council source of the body, when the slug is in two' },
  kind: { type: 'string', required: true, value: 'KIND', help: 'ogc-api-features or wfs' },
  url: {
    type: 'string',
    required: true,
    value: 'URL',
    help: 'OGC API landing page or items URL; WFS service URL',
  },
  layer: { type: 'string', value: 'L', help: 'collection id (OGC API) or TYPENAMES (WFS)' },
  param: { type: 'string', value: 'k=v', multiple: true, help: 'an extra query parameter' },
  filter: { type: 'string', value: 'prop=v1,v2', help: 'only features with one of these values' },
  'number-property': { type: 'string', value: 'P', help: 'plan number property (default nummer)' },
  'title-property': { type: 'string', value: 'P', help: 'plan title property (default name)' },
  'link-property': { type: 'string', value: 'P', help: 'document link property (http(s) only)' },
  attribution: { type: 'string', value: 'T', help: 'attribution text of the data' },
  'license-url': { type: 'string', value: 'U', help: 'licence URL of the data' },
  ags: { type: 'string', value: 'AGS', help: '8-digit municipality key for plan ids (default: the body)' },
  activate: { type: 'flag', help: 'store it active (default inactive)' },
} as const satisfies OptionTable;
const GEO_REFRESH = {
  id: { type: 'string', value: 'ID', help: 'only this geo source' },
  ...ONCE,
} as const satisfies OptionTable;

const BODIES_LIST = {
  ...SOURCE,
  force: { type: 'flag', help: 'list a body that was taken down' },
} as const satisfies OptionTable;

/**
 * `objects --type`: shared/mirror's MIRROR_TYPES, spelt out because this table must answer without
 * loading the mirror (and the AWS SDK behind it); test/cli/args checks the two lists are the same.
 */
export const OBJECT_TYPES = [
  'system',
  'body',
  'organization',
  'person',
  'meeting',
  'paper',
  'legislativeterm',
  'membership',
  'agendaitem',
  'consultation',
  'file',
  'location',
] as const;

const OBJECTS = {
  ...SOURCE,
  body: { type: 'string', value: 'SLUG', help: 'only this body' },
  type: { type: 'string', value: 'T', choices: OBJECT_TYPES, help: 'only this type' },
  since: { type: 'instant', value: 'ISO', help: 'only objects committed at or after this time' },
} as const satisfies OptionTable;

/** `backfill-index --rate`'s ceiling: updates per second on-demand tables take without throttling others. */
export const BACKFILL_MAX_RATE = 1000;

/** `--rate N` of a bulk command: its writes a second, at most BACKFILL_MAX_RATE. */
const rateOption = (what: string) =>
  ({
    type: 'number',
    integer: true,
    min: 1,
    max: BACKFILL_MAX_RATE,
    value: 'N',
    help: `${what} per second at most (default: a pace syncs never notice)`,
  }) as const;

const BACKFILL = {
  ...SOURCE,
  rate: rateOption('updates'),
  'dry-run': { type: 'flag', help: 'count what would be written, write nothing' },
} as const satisfies OptionTable;

const MIRROR_REBUILD = {
  ...SOURCE,
  all: { type: 'flag', help: 'every record under mirror/' },
  rate: rateOption('records'),
  'dry-run': { type: 'flag', help: 'count what would be written, write nothing' },
  restart: { type: 'flag', help: 'from the first record although a rebuild of this scope finished' },
} as const satisfies OptionTable;
const SOURCE_OR_ALL = ['source', 'all'] as const;

const MIGRATE_MIRROR_TABLE = {
  rate: rateOption('writes'),
  'delete-old': { type: 'flag', help: 'after deploy 2 (own): delete the moved items from State' },
  restart: { type: 'flag', help: 'scan from the start although the step finished (one more pass)' },
} as const satisfies OptionTable;

const TOMBSTONE = {
  body: { type: 'string', value: 'SLUG', help: 'every object of this body' },
  ids: { type: 'string', value: 'ID,…', multiple: true, help: 'these OParl ids' },
  ...SOURCE,
  note: { type: 'string', value: 'TEXT', help: 'why (kept with the tombstone)' },
} as const satisfies OptionTable;
const PURGE = {
  body: { type: 'string', required: true, value: 'SLUG', help: 'the body whose tombstoned objects go' },
  ...SOURCE,
  yes: { type: 'flag', help: 'delete (without it: a preview)' },
} as const satisfies OptionTable;
const LIFT = {
  body: { type: 'string', value: 'SLUG', help: 'the body taken down' },
  ids: { type: 'string', value: 'ID,…', multiple: true, help: 'these OParl ids' },
  ...SOURCE,
} as const satisfies OptionTable;

/** `--body` or `--ids`, exactly one (OPT-2, OPT-5): the parser refuses neither and both. */
const BODY_OR_IDS = ['body', 'ids'] as const;

/** `status` and `hosts` read the wall clock; `--now` asks as of another instant (a test, a replay). */
const AS_OF = {
  now: { type: 'instant', value: 'ISO', help: 'decide as of this instant (default: now)' },
} as const satisfies OptionTable;

const SYNC = {
  url: { type: 'string', required: true, value: 'URL', help: "the source's OParl System URL" },
  ...FULL,
} as const satisfies OptionTable;

const BROADCASTS_ADD = {
  body: {
    type: 'string',
    required: true,
    value: 'SLUG',
    help: 'the body whose meetings are broadcast (see `bodies`)',
  },
  url: {
    type: 'string',
    required: true,
    value: 'URL',
    help: "an HLS playlist, or the provider's JSON status endpoint",
  },
  'live-pointer': {
    type: 'string',
    value: 'P',
    help: 'JSON status: RFC 6901 pointer to the live flag (e.g. /live); without it the URL is HLS',
  },
  'stream-pointer': { type: 'string', value: 'P', help: 'JSON status: RFC 6901 pointer to the stream URL' },
  activate: { type: 'flag', help: 'poll it from now on (default: stored inactive, ONB-3)' },
  ...SOURCE,
  id: { type: 'string', value: 'ID', help: 'the new source id (default broadcast-<slug>)' },
} as const satisfies OptionTable;
const BROADCASTS_POLL = {
  id: { type: 'string', value: 'ID', help: 'only this broadcast source' },
} as const satisfies OptionTable;

const SERVE = {
  port: {
    type: 'number',
    integer: true,
    min: 0,
    max: 65_535,
    value: 'P',
    help: 'port (default: a free one)',
  },
} as const satisfies OptionTable;

const ROBOTS_CHECK = {
  'robots-file': { type: 'string', value: 'F', help: 'the robots.txt (needed for a 2xx status)' },
  agent: { type: 'string', required: true, value: 'UA', help: 'the full User-Agent' },
  status: {
    type: 'number',
    integer: true,
    min: 100,
    max: 599,
    value: 'CODE',
    help: 'HTTP status of robots.txt (default 200)',
  },
} as const satisfies OptionTable;

const SIMULATE_CADENCE = {
  from: { type: 'string', required: true, value: 'ISO', help: 'start, local time Europe/Berlin' },
  days: { type: 'number', required: true, integer: true, min: 1, value: 'N', help: 'days to simulate' },
  'session-day': { type: 'string', value: 'YYYY-MM-DD', multiple: true, help: 'a session day' },
  'change-at': { type: 'string', value: 'ISO', multiple: true, help: 'the source changes at' },
  'sync-seconds': { type: 'number', min: 0, value: 'S', help: 'how long each sync takes' },
} as const satisfies OptionTable;

/** The option tables by command, for the command modules' input types (`InputOf<…>`). */
export type StartInput = InputOf<typeof START>;
export type SourcesAddInput = InputOf<typeof SOURCES_ADD>;
export type SourcesImportInput = InputOf<typeof SOURCES_IMPORT>;
export type BroadcastsAddInput = InputOf<typeof BROADCASTS_ADD>;
export type BroadcastsPollInput = InputOf<typeof BROADCASTS_POLL>;
export type GeoAddInput = InputOf<typeof GEO_ADD>;
export type BackfillInput = InputOf<typeof BACKFILL>;
export type MigrateMirrorTableInput = InputOf<typeof MIGRATE_MIRROR_TABLE>;
export type MirrorRebuildInput = InputOf<typeof MIRROR_REBUILD>;
export type ObjectsInput = InputOf<typeof OBJECTS>;
export type SyncInput = InputOf<typeof SYNC>;
export type ServeInput = InputOf<typeof SERVE>;
export type RobotsCheckInput = InputOf<typeof ROBOTS_CHECK>;
export type SimulateCadenceInput = InputOf<typeof SIMULATE_CADENCE>;

export const COMMANDS: CommandSpec[] = [
  {
    name: 'start',
    synopsis: ['start [--once] [--demo-objects N]'],
    summary: 'the whole pipeline locally (npm start); the bundled demo council when no source is set up',
    runtime: true,
    bare: { args: [0, 0], options: START },
    run: async (ctx) =>
      (await import('./start')).startCommand(ctx.rt, {
        ...input(START, ctx),
        json: ctx.json,
        allowLoopback: allowLoopback(ctx),
      }),
  },
  {
    name: 'sources',
    synopsis: [
      'sources list | show <id>',
      'sources add <systemUrl> [--id ID] [--name N] [--kind oparl|scraper] [--adapter A]',
      'sources import <file.json|file.csv> [--activate]',
      'sources set <id> key=value… [--only] | activate <id> | deactivate <id> [--only]',
    ],
    summary: 'sources, their validity and last decision; add (ONB-2/3), import, change, (de)activate (ERR-7)',
    runtime: true,
    subcommands: {
      list: { args: [0, 0] },
      show: { args: [1, 1] },
      add: { args: [1, 1], options: SOURCES_ADD },
      import: { args: [1, 1], options: SOURCES_IMPORT },
      set: { args: [2, Number.POSITIVE_INFINITY], options: ONLY },
      activate: { args: [1, 1] },
      deactivate: { args: [1, 1], options: ONLY },
    },
    run: async (ctx) => {
      // The table checked the words: each subcommand's arity, so `id` is there where one is needed.
      const [sub, id = '', ...assignments] = ctx.args;
      if (sub === 'add' || sub === 'import') {
        const onboarding = await import('./sources-add');
        // ONB-2 / ONB-3: robots.txt, System and body list first, then stored inactive.
        return sub === 'add'
          ? onboarding.addSourceCommand(ctx.rt, id, input(SOURCES_ADD, ctx))
          : onboarding.importSourcesCommand(ctx.rt, id, { ...input(SOURCES_IMPORT, ctx), json: ctx.json });
      }
      const sources = await import('./sources');
      if (sub === 'list') return sources.listSources(ctx.rt);
      if (sub === 'show') return sources.showSource(ctx.rt, id);
      const { only } = input(ONLY, ctx);
      return sources.changeSource(
        ctx.rt,
        sub === 'set'
          ? { sourceId: id, set: assignments, only }
          : { sourceId: id, active: sub === 'activate', only },
      );
    },
  },
  {
    name: 'geo',
    synopsis: [
      'geo add --body SLUG --kind ogc-api-features|wfs --url URL [--layer L] [--param k=v]… [--filter prop=v1,v2]',
      '        [--number-property P] [--title-property P] [--link-property P] [--attribution T] [--license-url U] [--activate]',
      'geo refresh [--id ID] --once',
      'geo list | activate <id> | deactivate <id>',
    ],
    summary:
      'plan boundaries from geo services (OTH-4): add a geo source, refresh now, list; switch one off (OTH-3)',
    runtime: true,
    subcommands: {
      add: { args: [0, 0], options: GEO_ADD },
      refresh: { args: [0, 0], options: GEO_REFRESH },
      list: { args: [0, 0] },
      activate: { args: [1, 1] },
      deactivate: { args: [1, 1] },
    },
    run: async (ctx) => {
      const geo = await import('./geo');
      const [sub, id] = ctx.args;
      if (sub === 'list') return geo.geoList(ctx.rt);
      if (sub === 'activate' || sub === 'deactivate')
        return geo.geoSetActive(ctx.rt, id as string, sub === 'activate');
      if (sub === 'refresh') {
        const { id: only } = input(GEO_REFRESH, ctx);
        return geo.geoRefresh(ctx.rt, {
          ...(only === undefined ? {} : { id: only }),
          allowLoopback: allowLoopback(ctx),
        });
      }
      return geo.geoAdd(ctx.rt, input(GEO_ADD, ctx));
    },
  },
  {
    name: 'probe',
    synopsis: ['probe <url>…'],
    summary: 'is there an OParl API? ≤ 5 requests per body, robots.txt first, 2 s between bodies (ONB-1)',
    runtime: true,
    bare: { args: [1, Number.POSITIVE_INFINITY] },
    run: async (ctx) => (await import('./probe')).probeCommand(ctx.rt, ctx.args, ctx.json),
  },
  {
    name: 'bodies',
    synopsis: ['bodies [--source ID]', 'bodies list|unlist <slug> [--source ID] [--force]'],
    summary: 'bodies with their slugs; list or unlist one (new bodies stay unlisted, ONB-4)',
    runtime: true,
    bare: { args: [0, 0], options: SOURCE },
    subcommands: {
      list: { args: [1, 1], options: BODIES_LIST },
      unlist: { args: [1, 1], options: SOURCE },
    },
    run: async (ctx) =>
      (await import('./bodies')).bodiesCommand(ctx.rt, ctx.args as BodiesArgs, input(BODIES_LIST, ctx)),
  },
  {
    name: 'objects',
    synopsis: ['objects [--source ID] [--body SLUG] [--type T] [--since ISO]'],
    summary: 'what the mirror holds, from its index: type, live/deleted/taken down, commit time, origin id',
    runtime: true,
    bare: { args: [0, 0], options: OBJECTS },
    run: async (ctx) => (await import('./objects')).objectsCommand(ctx.rt, input(OBJECTS, ctx)),
  },
  {
    name: 'backfill-index',
    synopsis: ['backfill-index [--source ID] [--rate N] [--dry-run]'],
    summary:
      'completes interrupted takedowns, gives index items their list keys and inline copies, recounts the API lists (idempotent, paced)',
    runtime: true,
    bare: { args: [0, 0], options: BACKFILL },
    run: async (ctx) => (await import('./backfill')).backfillIndexCommand(ctx.rt, input(BACKFILL, ctx)),
  },
  {
    name: 'migrate',
    synopsis: ['migrate mirror-table [--delete-old] [--rate N] [--restart]'],
    summary:
      "moves the mirror's index items from State to the Mirror table (issue 28: after deploy 1; --delete-old after deploy 2)",
    runtime: true,
    subcommands: { 'mirror-table': { args: [0, 0], options: MIGRATE_MIRROR_TABLE } },
    run: async (ctx) =>
      (await import('./migrate')).migrateMirrorTableCommand(ctx.rt, input(MIGRATE_MIRROR_TABLE, ctx)),
  },
  {
    name: 'mirror',
    synopsis: ['mirror rebuild --source ID | --all [--rate N] [--dry-run] [--restart]'],
    summary:
      'rebuilds the Mirror table from the S3 records (issue 28; takedowns kept, newer items kept, resumable)',
    runtime: true,
    subcommands: { rebuild: { args: [0, 0], options: MIRROR_REBUILD, oneOf: SOURCE_OR_ALL } },
    run: async (ctx) =>
      (await import('./mirror-rebuild')).mirrorRebuildCommand(ctx.rt, input(MIRROR_REBUILD, ctx)),
  },
  {
    name: 'tombstone',
    synopsis: ['tombstone --body <slug> | --ids <id,…> [--source ID] [--note TEXT]'],
    summary: 'hide a body or objects at once, keep them for audit (OPT-2)',
    runtime: true,
    bare: { args: [0, 0], options: TOMBSTONE, oneOf: BODY_OR_IDS },
    run: async (ctx) => (await import('./takedown')).tombstoneCommand(ctx.rt, input(TOMBSTONE, ctx)),
  },
  {
    name: 'purge-deleted',
    synopsis: ['purge-deleted --body <slug> [--source ID] [--yes]'],
    summary: 'shows what would be deleted physically; deletes with --yes (OPT-3)',
    runtime: true,
    bare: { args: [0, 0], options: PURGE },
    run: async (ctx) => (await import('./takedown')).purgeDeletedCommand(ctx.rt, input(PURGE, ctx)),
  },
  {
    name: 'takedown',
    synopsis: ['takedown lift --body <slug> | --ids <id,…> [--source ID]'],
    summary: 'ends a takedown (logged loudly); the next sync may mirror the objects again (OPT-5)',
    runtime: true,
    subcommands: { lift: { args: [0, 0], options: LIFT, oneOf: BODY_OR_IDS } },
    run: async (ctx) => (await import('./takedown')).liftCommand(ctx.rt, input(LIFT, ctx)),
  },
  {
    name: 'sync',
    synopsis: ['sync --url <systemUrl> [--full]'],
    summary:
      'one manual sync now (an unknown URL becomes an inactive source, ONB-3); Ctrl-C stops at a checkpoint',
    runtime: true,
    bare: { args: [0, 0], options: SYNC },
    run: async (ctx) =>
      (await import('./sync')).syncCommand(ctx.rt, { ...input(SYNC, ctx), json: ctx.json }, new Date()),
  },
  {
    name: 'broadcasts',
    synopsis: [
      'broadcasts add --body <slug> --url URL [--live-pointer P] [--stream-pointer P] [--activate] [--source ID] [--id ID]',
      'broadcasts status | poll [--id ID] | activate <id> | deactivate <id>',
    ],
    summary: 'live broadcasts of council meetings (OTH-5): add a stream per body, its status, one poll now',
    runtime: true,
    subcommands: {
      add: { args: [0, 0], options: BROADCASTS_ADD },
      status: { args: [0, 0] },
      poll: { args: [0, 0], options: BROADCASTS_POLL },
      activate: { args: [1, 1] },
      deactivate: { args: [1, 1] },
    },
    run: async (ctx) => {
      const broadcasts = await import('./broadcasts');
      // The table checked the words: the subcommand, and the id of activate/deactivate.
      const [sub, id = ''] = ctx.args;
      const now = new Date();
      if (sub === 'add') return broadcasts.broadcastsAdd(ctx.rt, input(BROADCASTS_ADD, ctx), now);
      if (sub === 'status') return broadcasts.broadcastsStatus(ctx.rt, now);
      if (sub === 'poll') return broadcasts.broadcastsPoll(ctx.rt, input(BROADCASTS_POLL, ctx), now);
      return broadcasts.broadcastsSetActive(ctx.rt, { id, active: sub === 'activate' }, now);
    },
  },
  {
    name: 'request',
    synopsis: ['request <sourceId> [--full]'],
    summary: 'ask the planner for a (full) sync; says what will happen (SCH-7, FULL-8)',
    runtime: true,
    bare: { args: [1, 1], options: FULL },
    run: async (ctx) =>
      // The table's arity [1, 1] checked the source id.
      (await import('./request')).requestCommand(
        ctx.rt,
        ctx.args[0] as string,
        input(FULL, ctx).full,
        new Date(),
      ),
  },
  {
    name: 'status',
    synopsis: ['status [<sourceId>] [--now ISO]'],
    summary: 'why each source waits, runs or is paused; last run, failure streak',
    runtime: true,
    bare: { args: [0, 1], options: AS_OF },
    run: async (ctx) =>
      (await import('./status')).statusCommand(ctx.rt, ctx.args[0], input(AS_OF, ctx).now ?? new Date()),
  },
  {
    name: 'hosts',
    synopsis: ['hosts [--now ISO]'],
    summary:
      'per host: sources, capacity, demand, utilisation, queued runs, stretch, full-sync backlog (RATE-9)',
    runtime: true,
    bare: { args: [0, 0], options: AS_OF },
    run: async (ctx) => (await import('./hosts')).hostsCommand(ctx.rt, input(AS_OF, ctx).now ?? new Date()),
  },
  {
    name: 'files',
    synopsis: ['files [--once]', 'files clear <fileId>'],
    summary: 'one document cache + text pass now (DOC-1…7); clear a file blocked by robots.txt (DOC-6)',
    runtime: true,
    bare: { args: [0, 0], options: ONCE },
    subcommands: { clear: { args: [1, 1] } },
    run: async (ctx) =>
      (await import('./files')).filesCommand(
        ctx.rt,
        // The table checked the words: none, or `clear` and one id.
        { positionals: ctx.args as FilesArgs, json: ctx.json },
        new Date(),
      ),
  },
  {
    name: 'documents',
    synopsis: ['documents [--source ID]'],
    summary: 'documents: state, attempts, next attempt, size, hash, text',
    runtime: true,
    bare: { args: [0, 0], options: SOURCE },
    run: async (ctx) => {
      const { source } = input(SOURCE, ctx);
      return (await import('./documents')).documentsCommand(
        ctx.rt,
        source === undefined ? {} : { sourceId: source },
      );
    },
  },
  {
    name: 'deletion-check',
    synopsis: ['deletion-check [--once]'],
    summary: 'one pass of the hourly deletion check now (DEL-1…5)',
    runtime: true,
    bare: { args: [0, 0], options: ONCE },
    run: async (ctx) => (await import('./deletion-check')).deletionCheckCommand(ctx.rt, new Date(), ctx.json),
  },
  {
    name: 'photos',
    synopsis: ['photos [--once]'],
    summary: 'one pass of the Monday person photos now (PHO-1…3)',
    runtime: true,
    bare: { args: [0, 0], options: ONCE },
    run: async (ctx) => (await import('./photos')).photosCommand(ctx.rt, new Date(), ctx.json),
  },
  {
    name: 'serve',
    synopsis: ['serve [--port P]'],
    summary:
      'on localhost: the document preview GET /documents/{docId} (PRV-1…4) and the OParl API /oparl/v1/system',
    runtime: true,
    bare: { args: [0, 0], options: SERVE },
    run: async (ctx) =>
      (await import('./serve')).serveCommand(ctx.rt, {
        ...input(SERVE, ctx),
        allowLoopback: allowLoopback(ctx),
      }),
  },
  {
    name: 'robots',
    synopsis: ['robots check --robots-file F --agent UA [--status CODE] <url>'],
    summary: "the fetcher's robots.txt verdict for one URL, no network (ROB-1…)",
    runtime: false,
    subcommands: { check: { args: [1, 1], options: ROBOTS_CHECK } },
    run: async (ctx) =>
      (await import('./robots')).robotsCommand(ctx.args[1] as string, input(ROBOTS_CHECK, ctx), new Date()),
  },
  {
    name: 'simulate',
    synopsis: [
      'simulate cadence --from <ISO> --days N [--session-day D]… [--change-at ISO]… [--sync-seconds S]',
    ],
    summary: "the planner's cadence decisions over simulated time (SCH-6: 131 a quiet week)",
    runtime: false,
    subcommands: { cadence: { args: [0, 0], options: SIMULATE_CADENCE } },
    run: async (ctx) => (await import('./simulate')).simulateCommand(input(SIMULATE_CADENCE, ctx)),
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
