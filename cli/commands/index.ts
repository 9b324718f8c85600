import type { ArgsSpec, OptionTable, ParsedArgs } from '../args';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

/**
 * The operator CLI's command table: per command its synopsis, its options (one table each, checked
 * strictly by `cli/args.ts`) and a runner that imports the command's module only when it runs. Nothing
 * here may import a command module or the local stand-ins at load time — `ingestor --help` and every
 * usage error answer from this table alone.
 */
export interface RunContext {
  /** Positionals after the command name (a subcommand included). */
  args: string[];
  values: ParsedArgs['values'];
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

const str = (ctx: RunContext, name: string): string | undefined => {
  const v = ctx.values[name];
  return typeof v === 'string' ? v : undefined;
};
const flag = (ctx: RunContext, name: string): boolean => ctx.values[name] === true;
const list = (ctx: RunContext, name: string): string[] | undefined => {
  const v = ctx.values[name];
  return Array.isArray(v) ? v : undefined;
};
/** `{ key: value }` when the option is set, `{}` otherwise (exactOptionalPropertyTypes). */
const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

const SOURCE: OptionTable = { source: { type: 'string', value: 'ID', help: 'only this source' } };
const ONCE: OptionTable = { once: { type: 'boolean', help: 'one pass now (the default; kept for scripts)' } };
const FULL: OptionTable = {
  full: { type: 'boolean', help: 'a full sync (FULL-8: own window, minimum distance)' },
};
const ONLY: OptionTable = {
  only: { type: 'boolean', help: 'this source only, not the other sources on its server (OPT-4)' },
};

export const COMMANDS: CommandSpec[] = [
  {
    name: 'start',
    synopsis: ['start [--once] [--demo-objects N]'],
    summary: 'the whole pipeline locally (npm start); the bundled demo council when no source is set up',
    runtime: true,
    bare: {
      args: [0, 0],
      options: {
        once: { type: 'boolean', help: 'one planner tick, drain the queue, print a JSON summary, exit' },
        'demo-objects': {
          type: 'string',
          value: 'N',
          help: 'objects per list and body of the bundled demo (1…12, default 12): a shorter first start',
        },
      },
    },
    run: async (ctx) =>
      (await import('./start')).startCommand(ctx.rt, {
        once: flag(ctx, 'once'),
        json: ctx.json,
        allowLoopback: flag(ctx, 'allow-loopback'),
        ...opt('demoObjects', str(ctx, 'demo-objects')),
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
      add: {
        args: [1, 1],
        options: {
          id: { type: 'string', value: 'ID', help: 'source id (default: from the host name)' },
          name: { type: 'string', value: 'NAME', help: 'display name' },
          kind: { type: 'string', value: 'KIND', help: 'oparl (default) or scraper' },
          adapter: { type: 'string', value: 'A', help: 'scraper adapter (allris3, sessionnet)' },
        },
      },
      import: {
        args: [1, 1],
        options: { activate: { type: 'boolean', help: 'store the checked sources active (ONB-3)' } },
      },
      set: { args: [2, Number.POSITIVE_INFINITY], options: ONLY },
      activate: { args: [1, 1] },
      deactivate: { args: [1, 1], options: ONLY },
    },
    run: async (ctx) =>
      (await import('./sources')).sourcesCommand(ctx.rt, {
        positionals: ctx.args,
        values: ctx.values as Record<string, string | boolean | undefined>,
      }),
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
      add: {
        args: [0, 0],
        required: ['body', 'kind', 'url'],
        options: {
          body: { type: 'string', value: 'SLUG', help: 'the body the plans belong to (its slug, ONB-4)' },
          source: {
            type: 'string',
            value: 'ID',
            help: 'the council source of the body, when the slug is in two',
          },
          kind: { type: 'string', value: 'KIND', help: 'ogc-api-features or wfs' },
          url: { type: 'string', value: 'URL', help: 'OGC API landing page or items URL; WFS service URL' },
          layer: { type: 'string', value: 'L', help: 'collection id (OGC API) or TYPENAMES (WFS)' },
          param: { type: 'string', value: 'k=v', multiple: true, help: 'an extra query parameter' },
          filter: { type: 'string', value: 'prop=v1,v2', help: 'only features with one of these values' },
          'number-property': { type: 'string', value: 'P', help: 'plan number property (default nummer)' },
          'title-property': { type: 'string', value: 'P', help: 'plan title property (default name)' },
          'link-property': { type: 'string', value: 'P', help: 'document link property (http(s) only)' },
          attribution: { type: 'string', value: 'T', help: 'attribution text of the data' },
          'license-url': { type: 'string', value: 'U', help: 'licence URL of the data' },
          ags: {
            type: 'string',
            value: 'AGS',
            help: '8-digit municipality key for plan ids (default: the body)',
          },
          activate: { type: 'boolean', help: 'store it active (default inactive)' },
        },
      },
      refresh: {
        args: [0, 0],
        options: { id: { type: 'string', value: 'ID', help: 'only this geo source' }, ...ONCE },
      },
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
        return geo.geoRefresh(ctx.rt, {
          ...opt('id', str(ctx, 'id')),
          allowLoopback: flag(ctx, 'allow-loopback'),
        });
      }
      // `required` above: the parser refused a line without them.
      return geo.geoAdd(ctx.rt, {
        body: str(ctx, 'body') as string,
        kind: str(ctx, 'kind') as string,
        url: str(ctx, 'url') as string,
        activate: flag(ctx, 'activate'),
        ...opt('source', str(ctx, 'source')),
        ...opt('layer', str(ctx, 'layer')),
        ...opt('params', list(ctx, 'param')),
        ...opt('filter', str(ctx, 'filter')),
        ...opt('numberProperty', str(ctx, 'number-property')),
        ...opt('titleProperty', str(ctx, 'title-property')),
        ...opt('linkProperty', str(ctx, 'link-property')),
        ...opt('attribution', str(ctx, 'attribution')),
        ...opt('licenseUrl', str(ctx, 'license-url')),
        ...opt('ags', str(ctx, 'ags')),
      });
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
      list: {
        args: [1, 1],
        options: { ...SOURCE, force: { type: 'boolean', help: 'list a body that was taken down' } },
      },
      unlist: { args: [1, 1], options: SOURCE },
    },
    run: async (ctx) =>
      (await import('./bodies')).bodiesCommand(ctx.rt, ctx.args, {
        ...opt('source', str(ctx, 'source')),
        force: flag(ctx, 'force'),
      }),
  },
  {
    name: 'objects',
    synopsis: ['objects [--source ID] [--body SLUG] [--type T] [--since ISO]'],
    summary: 'what the mirror holds, from its index: type, live/deleted/taken down, commit time, origin id',
    runtime: true,
    bare: {
      args: [0, 0],
      options: {
        ...SOURCE,
        body: { type: 'string', value: 'SLUG', help: 'only this body' },
        type: { type: 'string', value: 'T', help: 'only this type (paper, meeting, agendaitem …)' },
        since: { type: 'string', value: 'ISO', help: 'only objects committed at or after this time' },
      },
    },
    run: async (ctx) =>
      (await import('./objects')).objectsCommand(ctx.rt, {
        ...opt('source', str(ctx, 'source')),
        ...opt('body', str(ctx, 'body')),
        ...opt('type', str(ctx, 'type')),
        ...opt('since', str(ctx, 'since')),
      }),
  },
  {
    name: 'backfill-index',
    synopsis: ['backfill-index [--source ID] [--rate N] [--dry-run]'],
    summary:
      'completes interrupted takedowns, gives index items their list keys and inline copies, recounts the API lists (idempotent, paced)',
    runtime: true,
    bare: {
      args: [0, 0],
      options: {
        ...SOURCE,
        rate: {
          type: 'string',
          value: 'N',
          help: 'updates per second at most (default: a pace syncs never notice)',
        },
        'dry-run': { type: 'boolean', help: 'count what would be written, write nothing' },
      },
    },
    run: async (ctx) =>
      (await import('./backfill')).backfillIndexCommand(ctx.rt, {
        ...opt('source', str(ctx, 'source')),
        ...opt('rate', str(ctx, 'rate')),
        dryRun: flag(ctx, 'dry-run'),
      }),
  },
  {
    name: 'tombstone',
    synopsis: ['tombstone --body <slug> | --ids <id,…> [--source ID] [--note TEXT]'],
    summary: 'hide a body or objects at once, keep them for audit (OPT-2)',
    runtime: true,
    bare: {
      args: [0, 0],
      options: {
        body: { type: 'string', value: 'SLUG', help: 'every object of this body' },
        ids: { type: 'string', value: 'ID,…', multiple: true, help: 'these OParl ids' },
        ...SOURCE,
        note: { type: 'string', value: 'TEXT', help: 'why (kept with the tombstone)' },
      },
    },
    run: async (ctx) =>
      (await import('./takedown')).tombstoneCommand(ctx.rt, {
        ...opt('body', str(ctx, 'body')),
        ...opt('ids', list(ctx, 'ids')),
        ...opt('source', str(ctx, 'source')),
        ...opt('note', str(ctx, 'note')),
      }),
  },
  {
    name: 'purge-deleted',
    synopsis: ['purge-deleted --body <slug> [--source ID] [--yes]'],
    summary: 'shows what would be deleted physically; deletes with --yes (OPT-3)',
    runtime: true,
    bare: {
      args: [0, 0],
      required: ['body'],
      options: {
        body: { type: 'string', value: 'SLUG', help: 'the body whose tombstoned objects go' },
        ...SOURCE,
        yes: { type: 'boolean', help: 'delete (without it: a preview)' },
      },
    },
    run: async (ctx) =>
      (await import('./takedown')).purgeDeletedCommand(ctx.rt, {
        ...opt('body', str(ctx, 'body')),
        ...opt('source', str(ctx, 'source')),
        yes: flag(ctx, 'yes'),
      }),
  },
  {
    name: 'takedown',
    synopsis: ['takedown lift --body <slug> | --ids <id,…> [--source ID]'],
    summary: 'ends a takedown (logged loudly); the next sync may mirror the objects again (OPT-5)',
    runtime: true,
    subcommands: {
      lift: {
        args: [0, 0],
        options: {
          body: { type: 'string', value: 'SLUG', help: 'the body taken down' },
          ids: { type: 'string', value: 'ID,…', multiple: true, help: 'these OParl ids' },
          ...SOURCE,
        },
      },
    },
    run: async (ctx) =>
      (await import('./takedown')).liftCommand(ctx.rt, {
        positionals: ctx.args,
        ...opt('body', str(ctx, 'body')),
        ...opt('ids', list(ctx, 'ids')),
        ...opt('source', str(ctx, 'source')),
      }),
  },
  {
    name: 'sync',
    synopsis: ['sync --url <systemUrl> [--full]'],
    summary:
      'one manual sync now (an unknown URL becomes an inactive source, ONB-3); Ctrl-C stops at a checkpoint',
    runtime: true,
    bare: {
      args: [0, 0],
      required: ['url'],
      options: { url: { type: 'string', value: 'URL', help: "the source's OParl System URL" }, ...FULL },
    },
    run: async (ctx) =>
      (await import('./sync')).syncCommand(
        ctx.rt,
        { ...opt('url', str(ctx, 'url')), full: flag(ctx, 'full'), json: ctx.json },
        new Date(),
      ),
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
      add: {
        args: [0, 0],
        options: {
          body: {
            type: 'string',
            value: 'SLUG',
            help: 'the body whose meetings are broadcast (see `bodies`)',
          },
          url: {
            type: 'string',
            value: 'URL',
            help: "an HLS playlist, or the provider's JSON status endpoint",
          },
          'live-pointer': {
            type: 'string',
            value: 'P',
            help: 'JSON status: RFC 6901 pointer to the live flag (e.g. /live); without it the URL is HLS',
          },
          'stream-pointer': {
            type: 'string',
            value: 'P',
            help: 'JSON status: RFC 6901 pointer to the stream URL',
          },
          activate: { type: 'boolean', help: 'poll it from now on (default: stored inactive, ONB-3)' },
          ...SOURCE,
          id: { type: 'string', value: 'ID', help: 'the new source id (default broadcast-<slug>)' },
        },
      },
      status: { args: [0, 0] },
      poll: {
        args: [0, 0],
        options: { id: { type: 'string', value: 'ID', help: 'only this broadcast source' } },
      },
      activate: { args: [1, 1] },
      deactivate: { args: [1, 1] },
    },
    run: async (ctx) =>
      (await import('./broadcasts')).broadcastsCommand(
        ctx.rt,
        ctx.args,
        {
          ...opt('body', str(ctx, 'body')),
          ...opt('url', str(ctx, 'url')),
          ...opt('livePointer', str(ctx, 'live-pointer')),
          ...opt('streamPointer', str(ctx, 'stream-pointer')),
          ...opt('source', str(ctx, 'source')),
          ...opt('id', str(ctx, 'id')),
          activate: flag(ctx, 'activate'),
        },
        new Date(),
      ),
  },
  {
    name: 'request',
    synopsis: ['request <sourceId> [--full]'],
    summary: 'ask the planner for a (full) sync; says what will happen (SCH-7, FULL-8)',
    runtime: true,
    bare: { args: [1, 1], options: FULL },
    run: async (ctx) =>
      (await import('./request')).requestCommand(ctx.rt, ctx.args[0], flag(ctx, 'full'), new Date()),
  },
  {
    name: 'status',
    synopsis: ['status [<sourceId>]'],
    summary: 'why each source waits, runs or is paused; last run, failure streak',
    runtime: true,
    bare: { args: [0, 1] },
    run: async (ctx) => (await import('./status')).statusCommand(ctx.rt, ctx.args[0], new Date()),
  },
  {
    name: 'hosts',
    synopsis: ['hosts'],
    summary:
      'per host: sources, capacity, demand, utilisation, queued runs, stretch, full-sync backlog (RATE-9)',
    runtime: true,
    bare: { args: [0, 0] },
    run: async (ctx) => (await import('./hosts')).hostsCommand(ctx.rt, new Date()),
  },
  {
    name: 'files',
    synopsis: ['files [--once]', 'files clear <fileId>'],
    summary: 'one document cache + text pass now (DOC-1…7); clear a file blocked by robots.txt (DOC-6)',
    runtime: true,
    bare: { args: [0, 0], options: ONCE },
    subcommands: { clear: { args: [1, 1] } },
    run: async (ctx) =>
      (await import('./files')).filesCommand(ctx.rt, { positionals: ctx.args, json: ctx.json }, new Date()),
  },
  {
    name: 'documents',
    synopsis: ['documents [--source ID]'],
    summary: 'documents: state, attempts, next attempt, size, hash, text',
    runtime: true,
    bare: { args: [0, 0], options: SOURCE },
    run: async (ctx) =>
      (await import('./documents')).documentsCommand(ctx.rt, opt('sourceId', str(ctx, 'source'))),
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
    bare: {
      args: [0, 0],
      options: { port: { type: 'string', value: 'P', help: 'port (default: a free one)' } },
    },
    run: async (ctx) =>
      (await import('./serve')).serveCommand(ctx.rt, {
        ...opt('port', str(ctx, 'port')),
        allowLoopback: flag(ctx, 'allow-loopback'),
      }),
  },
  {
    name: 'robots',
    synopsis: ['robots check --robots-file F --agent UA [--status CODE] <url>'],
    summary: "the fetcher's robots.txt verdict for one URL, no network (ROB-1…)",
    runtime: false,
    subcommands: {
      check: {
        args: [1, 1],
        required: ['agent'],
        options: {
          'robots-file': { type: 'string', value: 'F', help: 'the robots.txt (required for a 2xx status)' },
          agent: { type: 'string', value: 'UA', help: 'the full User-Agent' },
          status: { type: 'string', value: 'CODE', help: 'HTTP status of robots.txt (default 200)' },
        },
      },
    },
    run: async (ctx) =>
      (await import('./robots')).robotsCommand(ctx.args, ctx.values as Record<string, never>, new Date()),
  },
  {
    name: 'simulate',
    synopsis: [
      'simulate cadence --from <ISO> --days N [--session-day D]… [--change-at ISO]… [--sync-seconds S]',
    ],
    summary: "the planner's cadence decisions over simulated time (SCH-6: 131 a quiet week)",
    runtime: false,
    subcommands: {
      cadence: {
        args: [0, 0],
        required: ['from', 'days'],
        options: {
          from: { type: 'string', value: 'ISO', help: 'start, local time Europe/Berlin' },
          days: { type: 'string', value: 'N', help: 'days to simulate' },
          'session-day': { type: 'string', value: 'YYYY-MM-DD', multiple: true, help: 'a session day' },
          'change-at': { type: 'string', value: 'ISO', multiple: true, help: 'the source changes at' },
          'sync-seconds': { type: 'string', value: 'S', help: 'how long each sync takes' },
        },
      },
    },
    run: async (ctx) =>
      (await import('./simulate')).simulateCommand(ctx.args, ctx.values as Record<string, never>),
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
