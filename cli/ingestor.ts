import { readFileSync } from 'node:fs';
import {
  ArgsError,
  type ArgsSpec,
  checkArity,
  checkOneOf,
  firstPositional,
  HELP_OPTIONS,
  type OptionTable,
  optionLines,
  parseStrict,
  RUNTIME_OPTIONS,
} from './args';
import { COMMANDS, type CommandSpec, findCommand, type RunContext } from './commands';
import { EXIT_FAILED, EXIT_USAGE, emit, errorOutput, UsageError } from './output';

/**
 * The operator CLI (`npx ingestor …`). Local mode: every command works on the state under `--data`
 * (default `.data/`) through the same library the Lambdas use. Commands print lines for people, or with
 * `--json` one JSON object as the last line. Exit codes: 0 done, 1 the command failed (message on
 * stderr), 2 a usage error (unknown command or option, missing value or argument).
 *
 * Only the command table is loaded up front; a command's module, the AWS SDK and the local stand-ins
 * are imported when that command runs — `--help` and usage errors answer in a fraction of a second.
 */

function usage(): string {
  const lines = ['usage: ingestor <command> [options]   (ingestor <command> --help for its options)', ''];
  for (const c of COMMANDS) {
    for (const s of c.synopsis) lines.push(`  ${s}`);
    lines.push(`      ${c.summary}`);
  }
  lines.push('', 'options of every command:', ...optionLines(HELP_OPTIONS));
  lines.push('options of the commands that read or write state:', ...optionLines(RUNTIME_OPTIONS));
  lines.push('  --version  the version of the ingestor', '');
  lines.push('exit codes: 0 done, 1 the command failed (message on stderr), 2 usage error');
  return lines.join('\n');
}

/** `ingestor <command> --help`, generated from the command's declarations in the table. */
export function commandHelp(c: CommandSpec): string {
  const lines = [
    ...c.synopsis.map((s, i) => `${i === 0 ? 'usage: ' : '       '}ingestor ${s}`),
    '',
    c.summary,
  ];
  const specs: [string, ArgsSpec][] = [
    ...(c.bare ? ([['', c.bare]] as [string, ArgsSpec][]) : []),
    ...Object.entries(c.subcommands ?? {}),
  ];
  const own: OptionTable = {};
  for (const [, spec] of specs) Object.assign(own, spec.options ?? {});
  if (Object.keys(own).length > 0) lines.push('', 'options:', ...optionLines(own));
  lines.push(
    '',
    'common options:',
    ...optionLines({ ...HELP_OPTIONS, ...(c.runtime ? RUNTIME_OPTIONS : {}) }),
  );
  return lines.join('\n');
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The command name: the first argument that is not an option (nor `--data`'s value). */
function commandIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') return -1;
    if (a === '--data') {
      i++;
      continue;
    }
    if (!a.startsWith('-')) return i;
  }
  return -1;
}

interface Invocation {
  command: CommandSpec;
  ctx: Omit<RunContext, 'rt'>;
  help: boolean;
}

/** Parses one command line against the command's own table; throws UsageError. */
export function parseInvocation(argv: string[]): Invocation | { global: 'help' | 'version' | 'none' } {
  const at = commandIndex(argv);
  if (at < 0) {
    const { values } = parseStrict(argv, { ...HELP_OPTIONS, version: { type: 'flag', help: '' } });
    return { global: values.version ? 'version' : values.help ? 'help' : 'none' };
  }
  const name = argv[at] as string;
  const command = findCommand(name);
  if (!command) throw new ArgsError('unknown-command', `unknown command "${name}"`);
  const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
  const common = { ...HELP_OPTIONS, ...(command.runtime ? RUNTIME_OPTIONS : {}) };
  // The subcommand decides which options apply; find it with a lenient look first, knowing every
  // option of the command (so that a value, as in `bodies --source demo`, is not taken for one).
  const first = firstPositional(rest, {
    ...common,
    ...command.bare?.options,
    ...Object.assign({}, ...Object.values(command.subcommands ?? {}).map((sub) => sub.options ?? {})),
  });
  const sub = first !== undefined && command.subcommands?.[first] !== undefined ? first : undefined;
  const spec = sub !== undefined ? command.subcommands?.[sub] : command.bare;
  if (rest.includes('--help') || rest.includes('-h')) {
    return { command, ctx: { args: [], values: {}, json: rest.includes('--json') }, help: true };
  }
  if (!spec || (command.subcommands && first !== undefined && sub === undefined)) {
    const known = Object.keys(command.subcommands ?? {}).join('|');
    throw first === undefined
      ? new ArgsError('missing-subcommand', `${name} needs a subcommand: ${known}`)
      : new ArgsError('unknown-subcommand', `unknown subcommand "${name} ${first}" (known: ${known})`);
  }
  const what = sub ? `${name} ${sub}` : name;
  const parsed = parseStrict(rest, { ...common, ...(spec.options ?? {}) }, what);
  const args = parsed.positionals;
  checkArity(sub === undefined ? args : args.slice(1), spec.args ?? [0, 0], what);
  checkOneOf(parsed.values, spec.oneOf, what);
  if (parsed.values.aws === true && (parsed.values.data !== undefined || parsed.values['allow-loopback'])) {
    throw new ArgsError(
      'conflicting-options',
      '--aws works on the deployed resources; --data and --allow-loopback are local mode only',
    );
  }
  if (parsed.values.stack !== undefined && parsed.values.aws !== true) {
    throw new ArgsError(
      'conflicting-options',
      '--stack names the deployed stack of --aws; local mode has none',
    );
  }
  return { command, ctx: { args, values: parsed.values, json: parsed.values.json === true }, help: false };
}

export async function main(argv: string[]): Promise<number> {
  let json = argv.includes('--json');
  try {
    const invocation = parseInvocation(argv);
    if ('global' in invocation) {
      if (invocation.global === 'version') {
        process.stdout.write(
          json ? `${JSON.stringify({ version: packageVersion() })}\n` : `${packageVersion()}\n`,
        );
        return 0;
      }
      if (invocation.global === 'help') {
        process.stdout.write(`${usage()}\n`);
        return 0;
      }
      throw new ArgsError('no-command', 'no command given');
    }
    const { command, ctx } = invocation;
    json = ctx.json;
    if (invocation.help) {
      process.stdout.write(`${commandHelp(command)}\n`);
      return 0;
    }
    const result = command.runtime
      ? await withRuntime(ctx, command)
      : await command.run({ ...ctx, rt: undefined as never });
    emit(result, json);
    return result.exitCode ?? 0;
  } catch (err) {
    const usageError = err instanceof UsageError;
    const { text, object } = errorOutput(err);
    if (json) process.stdout.write(`${JSON.stringify(object)}\n`);
    else process.stderr.write(`${text}${usageError ? ` (see: ${helpHint(argv)})` : ''}\n`);
    return usageError ? EXIT_USAGE : EXIT_FAILED;
  }
}

function helpHint(argv: string[]): string {
  const name = argv[commandIndex(argv)];
  return name !== undefined && findCommand(name) ? `ingestor ${name} --help` : 'ingestor --help';
}

async function withRuntime(ctx: Omit<RunContext, 'rt'>, command: CommandSpec) {
  // Loaded here, not above: the local stand-ins and the AWS SDK cost seconds to import.
  const { data, stack } = ctx.values;
  const rt =
    ctx.values.aws === true
      ? await (await import('./aws')).openAwsRuntime({
          ...(typeof stack === 'string' ? { stack } : {}),
          // RATE-1/RATE-4: a fetching command line is refused without the shared slot store.
          positionals: [command.name, ...ctx.args],
        })
      : await (await import('./local/runtime')).openLocalRuntime({
          ...(typeof data === 'string' ? { dataDir: data } : {}),
          allowLoopback: ctx.values['allow-loopback'] === true,
        });
  try {
    return await command.run({ ...ctx, rt });
  } finally {
    await rt.close();
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
