import { describe, expect, it } from 'vitest';
import { ArgsError, type OptionTable, parseStrict } from '../../cli/args';
import { COMMANDS } from '../../cli/commands';
import { commandHelp, parseInvocation } from '../../cli/ingestor';

/**
 * Issue 29: the command table declares each command's options (flag / string / number, required, help)
 * and one parser reads a command line against them once, into the command's typed input — no
 * conversion beside it. Every hostile input is a typed usage error (`ArgsError`, code `CLI_USAGE`, its
 * `problem`) before anything opens; help is generated from the same declarations.
 */
const refusal = (argv: string[]) => {
  try {
    parseInvocation(argv);
  } catch (error) {
    return error;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
};

describe('the command table and its one parser', () => {
  it('unknown option, missing value, bad number, missing option, stray argument: typed usage errors', () => {
    const cases: [string[], string, RegExp][] = [
      [['status', '--bogus'], 'unknown-option', /unknown option --bogus/],
      [['sync', '--url'], 'missing-value', /--url <value>' argument missing/],
      [
        ['serve', '--port', 'eighty'],
        'bad-number',
        /--port must be a whole number from 0 to 65535, got "eighty"/,
      ],
      [['serve', '--port', '70000'], 'bad-number', /--port must be a whole number/],
      [['backfill-index', '--rate', '1.5'], 'bad-number', /--rate must be a whole number ≥ 1/],
      [['backfill-index', '--rate', ''], 'bad-number', /--rate/],
      [['simulate', 'cadence', '--from', '2026-11-30T00:00', '--days', '0'], 'bad-number', /--days/],
      [['start', '--demo-objects', 'many'], 'bad-number', /--demo-objects must be a whole number ≥ 1/],
      [['purge-deleted'], 'missing-option', /purge-deleted needs --body/],
      [['robots', 'check', 'https://a.example/'], 'missing-option', /robots check needs --agent/],
      [['status', 'a', 'b'], 'arguments', /status takes at most 1 argument/],
      [['frobnicate'], 'unknown-command', /unknown command "frobnicate"/],
      [['sources'], 'missing-subcommand', /sources needs a subcommand/],
      [['sources', 'frob'], 'unknown-subcommand', /unknown subcommand "sources frob"/],
      [['status', '--aws', '--data', 'x'], 'conflicting-options', /--aws works on the deployed resources/],
      // The command modules no longer check these themselves: the table's arity is the one check.
      [['request'], 'arguments', /request needs 1 argument/],
      [['probe'], 'arguments', /probe needs at least 1 argument/],
      [['files', 'clear'], 'arguments', /files clear needs 1 argument/],
      [['files', 'wipe'], 'unknown-subcommand', /unknown subcommand "files wipe"/],
      [['bodies', 'list'], 'arguments', /bodies list needs 1 argument/],
      [['broadcasts', 'activate'], 'arguments', /broadcasts activate needs 1 argument/],
    ];
    for (const [argv, problem, message] of cases) {
      const error = refusal(argv);
      expect(error, argv.join(' ')).toBeInstanceOf(ArgsError);
      expect(error, argv.join(' ')).toMatchObject({ code: 'CLI_USAGE', problem });
      expect((error as Error).message, argv.join(' ')).toMatch(message);
    }
  });

  it('a command line becomes the typed input its table declares: numbers as numbers, flags false when absent', () => {
    const table = {
      'demo-objects': { type: 'number', integer: true, min: 1, help: '' },
      once: { type: 'flag', help: '' },
      param: { type: 'string', multiple: true, help: '' },
    } as const satisfies OptionTable;
    expect(parseStrict(['--demo-objects', '3', '--param', 'a=1', '--param', 'b=2'], table).values).toEqual({
      'demo-objects': 3,
      once: false,
      param: ['a=1', 'b=2'],
    });
    const invocation = parseInvocation([
      'simulate',
      'cadence',
      '--from',
      'X',
      '--days',
      '7',
      '--sync-seconds',
      '2.5',
    ]);
    if (!('command' in invocation)) throw new Error('not a command line');
    expect(invocation.ctx.values).toMatchObject({ from: 'X', days: 7, 'sync-seconds': 2.5 });
  });

  it('help is generated from the declarations: every option of every command, with its placeholder', () => {
    for (const command of COMMANDS) {
      const help = commandHelp(command);
      const specs = [command.bare, ...Object.values(command.subcommands ?? {})];
      for (const spec of specs) {
        for (const [name, option] of Object.entries(spec?.options ?? {})) {
          expect(help, `${command.name} --${name}`).toContain(`--${name}`);
          if (option.required) expect(help).toMatch(new RegExp(`--${name} .*\\(required\\)`));
        }
      }
    }
    expect(commandHelp(COMMANDS.find((c) => c.name === 'serve') as (typeof COMMANDS)[number])).toMatch(
      /--port P +port \(default: a free one\)/,
    );
  });
});
