import { parseArgs } from 'node:util';
import { UsageError } from './output';

/**
 * One parser for every command: a command names its options in a table (type and a line of help),
 * `node:util` parseArgs checks them strictly, so an unknown option, a missing value or a stray argument
 * is a usage error (exit 2) before anything is opened or fetched. Imports nothing heavy: `--help` and
 * usage errors must answer without loading the AWS SDK or the local stand-ins.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** Shown in `--help`: `VALUE  what it does`. */
  help: string;
  /** Placeholder of a string option's value in help (`--port P`). */
  value?: string;
}

export type OptionTable = Record<string, OptionSpec>;

/** How many positionals (after the command and its subcommand): [min, max]. */
export type Arity = readonly [number, number];

export interface ArgsSpec {
  options?: OptionTable;
  args?: Arity;
  /** Options without which the command cannot run (a usage error, not a runtime one). */
  required?: string[];
}

export const HELP_OPTIONS: OptionTable = {
  help: { type: 'boolean', short: 'h', help: 'this help' },
  json: { type: 'boolean', help: 'one JSON object as the last line of stdout (errors too)' },
};

/** Commands that work on state: local mode (`--data`, `--allow-loopback`) or the deployed resources. */
export const RUNTIME_OPTIONS: OptionTable = {
  data: { type: 'string', value: 'DIR', help: 'local state folder (default .data)' },
  'allow-loopback': { type: 'boolean', help: 'local mode may reach 127.0.0.1 (the demo, tests)' },
  aws: {
    type: 'boolean',
    help: "the deployed stack's tables, bucket and queue, named by its outputs (fetching commands need its Upstash, RATE-1/RATE-4)",
  },
  stack: { type: 'string', value: 'NAME', help: 'the stack of --aws (default MandariIngestor)' },
};

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Strict parse against `table`; parseArgs' own errors become usage errors with its message. */
export function parseStrict(argv: string[], table: OptionTable): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, o] of Object.entries(table)) {
    options[name] = {
      type: o.type,
      ...(o.multiple ? { multiple: true } : {}),
      ...(o.short ? { short: o.short } : {}),
    };
  }
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const message = (error as Error).message;
    // parseArgs explains the `--` escape at length; the option's name is what the operator needs.
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    if (unknown) throw new UsageError(`unknown option ${unknown[1]}`);
    if (code.startsWith('ERR_PARSE_ARGS')) throw new UsageError(message);
    throw error;
  }
}

/** The first positional, options read leniently (unknown ones are refused later, by `parseStrict`). */
export function firstPositional(argv: string[], table: OptionTable): string | undefined {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, o] of Object.entries(table)) options[name] = { type: o.type };
  return parseArgs({ args: argv, options, allowPositionals: true, strict: false }).positionals[0];
}

export function checkArity(positionals: string[], arity: Arity, what: string): void {
  const [min, max] = arity;
  if (positionals.length < min) {
    throw new UsageError(`${what} needs ${min === max ? min : `at least ${min}`} argument(s)`);
  }
  if (positionals.length > max) {
    throw new UsageError(
      `${what} takes ${max === 0 ? 'no' : `at most ${max}`} argument(s); got "${positionals.slice(max).join(' ')}"`,
    );
  }
}

/** Help lines for an option table: `  --port P   document preview port`. */
export function optionLines(table: OptionTable): string[] {
  const rows = Object.entries(table).map(([name, o]) => [
    `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}${o.multiple ? ' …' : ''}${o.short ? `, -${o.short}` : ''}`,
    o.help,
  ]);
  const width = Math.max(0, ...rows.map(([left]) => (left as string).length));
  return rows.map(([left, right]) => `  ${(left as string).padEnd(width)}  ${right}`);
}
