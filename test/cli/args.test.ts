import { describe, expect, it } from 'vitest';
import { ArgsError, inputOf, type OptionTable, parseStrict } from '../../cli/args';
import { COMMANDS, OBJECT_TYPES } from '../../cli/commands';
import { changeSource } from '../../cli/commands/sources';
import { commandHelp, parseInvocation } from '../../cli/ingestor';
import type { LocalRuntime } from '../../cli/local/runtime';
import { MIRROR_TYPES } from '../../shared/mirror/types';

/** `sources add`'s options as the table declares them. */
const SOURCES_ADD_OPTIONS = (): OptionTable =>
  COMMANDS.find((c) => c.name === 'sources')?.subcommands?.add?.options ?? {};

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
      [['backfill-index', '--rate', '1.5'], 'bad-number', /--rate must be a whole number from 1 to 1000/],
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
      // `sources` under the table (its own switch and checks are gone): every word checked here.
      [['sources', 'add'], 'arguments', /sources add needs 1 argument/],
      [['sources', 'import'], 'arguments', /sources import needs 1 argument/],
      [['sources', 'show'], 'arguments', /sources show needs 1 argument/],
      [['sources', 'show', 'a', 'b'], 'arguments', /sources show takes at most 1 argument\(s\); got "b"/],
      [['sources', 'set', 'koeln'], 'arguments', /sources set needs at least 2 argument/],
      [['sources', 'activate', 'koeln', '--only'], 'unknown-option', /unknown option --only/],
      [['sources', 'add', '--kind'], 'missing-value', /--kind/],
      [['sources', 'list', '--activate'], 'unknown-option', /unknown option --activate/],
      // An empty word (an unset shell variable) is no id, URL or file.
      [['sources', 'show', ''], 'arguments', /sources show: argument 1 is empty/],
      [['sources', 'set', 'koeln', ''], 'arguments', /sources set: argument 2 is empty/],
      [['bodies', 'list', ''], 'arguments', /bodies list: argument 1 is empty/],
      [['probe', 'https://a.example/', ''], 'arguments', /probe: argument 2 is empty/],
      // Options the modules used to check themselves, now declared in the table.
      [
        ['broadcasts', 'add', '--url', 'https://a.example/x.m3u8'],
        'missing-option',
        /broadcasts add needs --body/,
      ],
      [['broadcasts', 'add', '--body', 'rat'], 'missing-option', /broadcasts add needs --url/],
      [
        ['backfill-index', '--rate', '1001'],
        'bad-number',
        /--rate must be a whole number from 1 to 1000, got "1001"/,
      ],
      [['status', '--data'], 'missing-value', /--data/],
      // A value that looks like an option is refused unless written `--name=--x`.
      [['sources', 'add', 'https://ris.example/oparl', '--name', '--x'], 'missing-value', /--name/],
      [['robots', 'check', '--agent', 'x', '--status', '99', 'https://a.example/'], 'bad-number', /--status/],
      // "One of" options and allowed values, declared in the table (the modules no longer check them).
      [['tombstone'], 'missing-option', /tombstone needs --body or --ids/],
      [['tombstone', '--ids', ''], 'missing-option', /tombstone needs --body or --ids/],
      [['tombstone', '--ids', ' , '], 'missing-option', /tombstone needs --body or --ids/],
      [
        ['tombstone', '--body', 'rat', '--ids', 'https://a.example/p/1'],
        'conflicting-options',
        /tombstone takes one of --body or --ids, not both/,
      ],
      [['takedown', 'lift'], 'missing-option', /takedown lift needs --body or --ids/],
      [['takedown', 'lift', '--body', 'rat', '--ids', 'x'], 'conflicting-options', /not both/],
      [['objects', '--type', 'widget'], 'bad-value', /--type must be one of system, body, .*got "widget"/],
      [['objects', '--type', ''], 'bad-value', /--type must be one of/],
      [['objects', '--since', 'yesterday'], 'bad-value', /--since must be an ISO 8601 date/],
      // A date-time without its offset would mean another instant on a machine in another zone.
      [['objects', '--since', '2026-11-30T09:00'], 'bad-value', /--since/],
      [['objects', '--since', '2026-13-40'], 'bad-value', /--since/],
      [['status', '--now', 'tomorrow'], 'bad-value', /--now must be an ISO 8601 date/],
      [['status', '--now', '1764493200000'], 'bad-value', /--now/],
      [['hosts', '--now', '2026-11-30T25:00:00Z'], 'bad-value', /--now/],
      [['hosts', '--now'], 'missing-value', /--now/],
      [['request', 'koeln', '--now', '2026-11-30T09:00:00Z'], 'unknown-option', /unknown option --now/],
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

  it('instants and choices reach the command converted once: a Date, the listed spelling', () => {
    const status = parseInvocation(['status', 'koeln', '--now', '2026-11-30T09:00:00+01:00']);
    if (!('command' in status)) throw new Error('not a command line');
    expect(status.ctx.values.now).toEqual(new Date('2026-11-30T08:00:00.000Z'));
    const hosts = parseInvocation(['hosts', '--now=2026-11-30']);
    if (!('command' in hosts)) throw new Error('not a command line');
    expect(hosts.ctx.values.now).toEqual(new Date('2026-11-30T00:00:00.000Z'));
    const objects = parseInvocation(['objects', '--type', 'Paper', '--since', '2026-11-30T08:00:00.5Z']);
    if (!('command' in objects)) throw new Error('not a command line');
    expect(objects.ctx.values).toMatchObject({
      type: 'paper',
      since: new Date('2026-11-30T08:00:00.500Z'),
    });
    const lift = parseInvocation([
      'takedown',
      'lift',
      '--ids',
      'https://a.example/p/1,https://a.example/p/2',
    ]);
    if (!('command' in lift)) throw new Error('not a command line');
    expect(lift.ctx.values.ids).toEqual(['https://a.example/p/1,https://a.example/p/2']);
  });

  it("objects --type's choices are the mirror's types (spelt out so help never loads the mirror)", () => {
    expect([...OBJECT_TYPES]).toEqual([...MIRROR_TYPES]);
  });

  it('nothing lost: the words and options of a valid line reach the command as typed', () => {
    const set = parseInvocation([
      'sources',
      'set',
      'koeln',
      'a.b=1',
      'name=Rat der Stadt',
      'note=',
      '--only',
    ]);
    if (!('command' in set)) throw new Error('not a command line');
    expect(set.ctx.args).toEqual(['set', 'koeln', 'a.b=1', 'name=Rat der Stadt', 'note=']);
    expect(set.ctx.values).toMatchObject({ only: true });
    const add = parseInvocation([
      'sources',
      'add',
      'https://ris.example/oparl?x=1&y=2',
      '--id',
      'köln-1',
      '--name=--x',
    ]);
    if (!('command' in add)) throw new Error('not a command line');
    expect(add.ctx.args).toEqual(['add', 'https://ris.example/oparl?x=1&y=2']);
    expect(inputOf(SOURCES_ADD_OPTIONS(), add.ctx.values)).toEqual({ id: 'köln-1', name: '--x' });
    const afterDashes = parseInvocation(['probe', '--', '--not-an-option']);
    if (!('command' in afterDashes)) throw new Error('not a command line');
    expect(afterDashes.ctx.args).toEqual(['--not-an-option']);
  });

  it('sources set: a bad key=value is a usage error before anything is read (the runtime is never touched)', async () => {
    const untouchable = new Proxy({} as Record<string, unknown>, {
      get: (_target, key) => {
        throw new Error(`read ${String(key)}`);
      },
    });
    const rt = { env: untouchable, clients: untouchable } as unknown as LocalRuntime;
    for (const [set, message] of [
      [['=1'], /expected key=value, got "=1"/],
      [['requestIntervalSeconds=5', 'novalue'], /expected key=value, got "novalue"/],
      [['sourceId=other'], /sourceId cannot be changed/],
      [['meta.sourceId=other'], /sourceId cannot be changed/],
    ] as const) {
      await expect(changeSource(rt, { sourceId: 'koeln', set: [...set], only: false })).rejects.toMatchObject(
        {
          code: 'CLI_USAGE',
          problem: 'arguments',
          message: expect.stringMatching(message),
        },
      );
    }
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
