import { parseArgs } from 'node:util';
import { isIngestorError } from '../shared/errors';
import { bodiesCommand } from './commands/bodies';
import { deletionCheckCommand } from './commands/deletion-check';
import { documentsCommand } from './commands/documents';
import { filesCommand } from './commands/files';
import { photosCommand } from './commands/photos';
import { probeCommand } from './commands/probe';
import { requestCommand } from './commands/request';
import { robotsCommand } from './commands/robots';
import { serveCommand } from './commands/serve';
import { simulateCommand } from './commands/simulate';
import { sourcesCommand } from './commands/sources';
import { startCommand } from './commands/start';
import { statusCommand } from './commands/status';
import { syncCommand } from './commands/sync';
import { liftCommand, purgeDeletedCommand, tombstoneCommand } from './commands/takedown';
import { openAwsRuntime, openLocalRuntime } from './local/runtime';
import { type CommandResult, emit, UsageError } from './output';

/**
 * The operator CLI (`npx ingestor …`). Local mode: every command works on the state under `--data`
 * (default `.data/`) through the same library the Lambdas use. Commands print lines for people, or with
 * `--json` one JSON object as the last line.
 */
const USAGE = `usage: ingestor <command> [options]

  start [--once]                           the whole pipeline locally (npm start); demo council when no source
  sources list|show <id>|add <systemUrl>|set <id> key=value… [--only]|activate <id>|deactivate <id> [--only]
  sources import <file.json|file.csv> [--activate]   many sources; active only with --activate (ONB-3)
  probe <url>…                             OParl API? ≤ 5 requests per body, 2 s between bodies (ONB-1)
  bodies [--source ID] | bodies list|unlist <slug> [--source ID]   slugs and listing (ONB-4)
  tombstone --body <slug> | --ids <id,…> [--source ID] [--note T]   hide at once, keep for audit (OPT-2)
  purge-deleted --body <slug> [--source ID] [--yes]                  preview, or delete physically (OPT-3)
  takedown lift --body <slug> | --ids <id,…> [--source ID]            end a takedown; next sync may restore (OPT-5)
  sync --url <systemUrl> [--full]          one manual sync now (creates an unknown source inactive, ONB-3)
  request <sourceId> [--full]              ask the planner for a (full) sync; says what will happen (SCH-7, FULL-8)
  status [<sourceId>]                      why each source waits, runs or is paused
  robots check --robots-file F --agent UA [--status CODE] <url>
  simulate cadence --from <ISO> --days N [--session-day D]… [--change-at ISO]… [--sync-seconds S]
  files [--once]                           one document cache + text pass now (DOC-1…DOC-7)
  files clear <fileId>                     fetch a file blocked by robots.txt / bot wall again (DOC-6)
  deletion-check [--once]                  one deletion check pass now (DEL-1…DEL-5)
  photos [--once]                          one person photo pass now (PHO-1…PHO-3)
  documents [--source ID]                  documents: state, attempts, next attempt, size, hash, text
  serve [--port P]                         document preview on localhost: GET /documents/{docId} (PRV-1…PRV-4)

common options: --data DIR (default .data)  --allow-loopback (local mode only)  --json
                --aws (work on the deployed tables and bucket named by SOURCES_TABLE, STATE_TABLE, DOCUMENTS_TABLE, BUCKET, SYNC_QUEUE_URL)`;

type Handler = (argv: string[], json: boolean) => Promise<CommandResult>;

const OPTIONS = {
  data: { type: 'string' },
  'allow-loopback': { type: 'boolean' },
  aws: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  id: { type: 'string' },
  name: { type: 'string' },
  kind: { type: 'string' },
  adapter: { type: 'string' },
  url: { type: 'string' },
  full: { type: 'boolean' },
  'robots-file': { type: 'string' },
  agent: { type: 'string' },
  status: { type: 'string' },
  from: { type: 'string' },
  days: { type: 'string' },
  'session-day': { type: 'string', multiple: true },
  'change-at': { type: 'string', multiple: true },
  'sync-seconds': { type: 'string' },
  once: { type: 'boolean' },
  source: { type: 'string' },
  body: { type: 'string' },
  ids: { type: 'string', multiple: true },
  note: { type: 'string' },
  yes: { type: 'boolean' },
  activate: { type: 'boolean' },
  only: { type: 'boolean' },
  force: { type: 'boolean' },
  port: { type: 'string' },
} as const;

export function parseCli(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

export type ParsedCli = ReturnType<typeof parseCli>;

const withRuntime =
  (
    run: (
      rt: Awaited<ReturnType<typeof openLocalRuntime>>,
      cli: ParsedCli,
      json: boolean,
    ) => Promise<CommandResult>,
  ): Handler =>
  async (argv, json) => {
    const cli = parseCli(argv);
    if (cli.values.aws === true && (cli.values.data !== undefined || cli.values['allow-loopback'] === true)) {
      throw new UsageError(
        '--aws works on the deployed resources; --data and --allow-loopback are local mode only',
      );
    }
    const rt =
      cli.values.aws === true
        ? await openAwsRuntime()
        : await openLocalRuntime({
            ...(cli.values.data === undefined ? {} : { dataDir: cli.values.data }),
            allowLoopback: cli.values['allow-loopback'] === true,
          });
    try {
      return await run(rt, cli, json);
    } finally {
      await rt.close();
    }
  };

export const COMMANDS: Record<string, Handler> = {
  simulate: async (argv) => {
    const cli = parseCli(argv);
    return simulateCommand(cli.positionals.slice(1), cli.values);
  },
  robots: async (argv) => {
    const cli = parseCli(argv);
    return robotsCommand(cli.positionals.slice(1), cli.values, new Date());
  },
  start: withRuntime((rt, cli, json) =>
    startCommand(rt, {
      once: cli.values.once === true,
      json,
      allowLoopback: cli.values['allow-loopback'] === true,
    }),
  ),
  sync: withRuntime((rt, cli, json) =>
    syncCommand(rt, { url: cli.values.url, full: cli.values.full === true, json }, new Date()),
  ),
  request: withRuntime((rt, cli) =>
    requestCommand(rt, cli.positionals[1], cli.values.full === true, new Date()),
  ),
  status: withRuntime((rt, cli) => statusCommand(rt, cli.positionals[1], new Date())),
  probe: withRuntime((rt, cli, json) => probeCommand(rt, cli.positionals.slice(1), json)),
  bodies: withRuntime((rt, cli) =>
    bodiesCommand(rt, cli.positionals.slice(1), {
      ...(cli.values.source !== undefined ? { source: cli.values.source } : {}),
      force: cli.values.force === true,
    }),
  ),
  tombstone: withRuntime((rt, cli) =>
    tombstoneCommand(rt, {
      ...(cli.values.body !== undefined ? { body: cli.values.body } : {}),
      ...(cli.values.ids !== undefined ? { ids: cli.values.ids } : {}),
      ...(cli.values.source !== undefined ? { source: cli.values.source } : {}),
      ...(cli.values.note !== undefined ? { note: cli.values.note } : {}),
    }),
  ),
  files: withRuntime((rt, cli, json) =>
    filesCommand(rt, { positionals: cli.positionals.slice(1), json }, new Date()),
  ),
  'deletion-check': withRuntime((rt) => deletionCheckCommand(rt, new Date())),
  photos: withRuntime((rt) => photosCommand(rt, new Date())),
  documents: withRuntime((rt, cli) =>
    documentsCommand(rt, cli.values.source === undefined ? {} : { sourceId: cli.values.source }),
  ),
  serve: withRuntime((rt, cli) =>
    serveCommand(rt, {
      ...(cli.values.port === undefined ? {} : { port: cli.values.port }),
      allowLoopback: cli.values['allow-loopback'] === true,
    }),
  ),
  takedown: withRuntime((rt, cli) =>
    liftCommand(rt, {
      positionals: cli.positionals.slice(1),
      ...(cli.values.body !== undefined ? { body: cli.values.body } : {}),
      ...(cli.values.ids !== undefined ? { ids: cli.values.ids } : {}),
      ...(cli.values.source !== undefined ? { source: cli.values.source } : {}),
    }),
  ),
  'purge-deleted': withRuntime((rt, cli) =>
    purgeDeletedCommand(rt, {
      ...(cli.values.body !== undefined ? { body: cli.values.body } : {}),
      ...(cli.values.source !== undefined ? { source: cli.values.source } : {}),
      yes: cli.values.yes === true,
    }),
  ),
  sources: withRuntime((rt, cli) =>
    sourcesCommand(rt, {
      positionals: cli.positionals.slice(1),
      values: cli.values as Record<string, string | boolean | undefined>,
    }),
  ),
};

export async function main(argv: string[]): Promise<number> {
  let json = argv.includes('--json');
  try {
    const cli = parseCli(argv);
    json = cli.values.json === true;
    const command = cli.positionals[0];
    if (cli.values.help || command === undefined) {
      process.stdout.write(`${USAGE}\n`);
      return command === undefined && !cli.values.help ? 2 : 0;
    }
    const handler = COMMANDS[command];
    if (!handler) throw new UsageError(`unknown command "${command}"\n${USAGE}`);
    const result = await handler(argv, json);
    emit(result, json);
    return result.exitCode ?? 0;
  } catch (err) {
    const code = isIngestorError(err) ? err.code : ((err as { code?: string }).code ?? 'ERROR');
    const message = err instanceof Error ? err.message : String(err);
    if (json) process.stdout.write(`${JSON.stringify({ error: code, message })}\n`);
    else process.stderr.write(`error (${code}): ${message}\n`);
    return code === 'CLI_USAGE' || code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? 2 : 1;
  }
}

// Run when executed directly (tsx cli/ingestor.ts or the bin shim), not when imported by tests.
const invokedPath = process.argv[1] ?? '';
if (
  invokedPath.endsWith('ingestor.ts') ||
  invokedPath.endsWith('bin.mjs') ||
  invokedPath.endsWith('/ingestor')
) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
