import { parseArgs } from 'node:util';
import { UsageError } from './output';

/**
 * One parser for every command: a command declares its options in a table (type, required, a line of
 * help), and this parser reads a command line against it once — strictly, so an unknown option, a
 * missing value, a bad number or a stray argument is a usage error (exit 2) before anything is opened
 * or fetched — into the command's typed input (`InputOf`: `--demo-objects 3` → `{ demoObjects: 3 }`).
 * Imports nothing heavy: `--help` and usage errors must answer without loading the AWS SDK or the local
 * stand-ins.
 */
export interface OptionSpec {
  /**
   * `flag`: present or not (false when absent); `string`: its text; `number`: a finite number;
   * `instant`: an ISO 8601 date, or date-time with its offset (`Z`, `+01:00`), as a `Date`.
   */
  type: 'flag' | 'string' | 'number' | 'instant';
  multiple?: boolean;
  short?: string;
  /** The command cannot run without it (a usage error, not a runtime one). */
  required?: boolean;
  /** A `number` must be a whole number. */
  integer?: boolean;
  /** A `number`'s smallest and largest accepted value. */
  min?: number;
  max?: number;
  /** A `string` must be one of these (compared without case; the input holds the one listed). */
  choices?: readonly string[];
  /** Shown in `--help`: `VALUE  what it does`. */
  help: string;
  /** Placeholder of a value in help (`--port P`). */
  value?: string;
}

export type OptionTable = Record<string, OptionSpec>;

/** How many positionals (after the command and its subcommand): [min, max]. */
export type Arity = readonly [number, number];

export interface ArgsSpec {
  options?: OptionTable;
  args?: Arity;
  /** Exactly one of these options must be given (`--body` or `--ids`): a usage error otherwise. */
  oneOf?: readonly string[];
}

/** `demo-objects` → `demoObjects`: the input's key of an option. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
type ValueOf<O extends OptionSpec> = O['type'] extends 'flag'
  ? boolean
  : O['type'] extends 'instant'
    ? Date
    : O['type'] extends 'number'
      ? O['multiple'] extends true
        ? number[]
        : number
      : O['multiple'] extends true
        ? string[]
        : string;
/** Options always in the input: flags (false when absent) and required options. */
type PresentKeys<T extends OptionTable> = {
  [K in keyof T]: T[K]['type'] extends 'flag' ? K : T[K]['required'] extends true ? K : never;
}[keyof T];

/** The typed input a command gets from its option table. */
export type InputOf<T extends OptionTable> = {
  [K in PresentKeys<T> as CamelCase<K & string>]: ValueOf<T[K]>;
} & {
  [K in Exclude<keyof T, PresentKeys<T>> as CamelCase<K & string>]?: ValueOf<T[K]>;
};

/** A parsed input before its command's table types it (`InputOf`). */
export type Input = Record<string, string | number | boolean | string[] | number[] | Date | undefined>;

/** What was wrong with a command line; `ArgsError.problem`, in `--json` as `problem`. */
export type ArgsProblem =
  | 'unknown-command'
  | 'no-command'
  | 'unknown-subcommand'
  | 'missing-subcommand'
  | 'unknown-option'
  | 'missing-value'
  | 'bad-number'
  | 'bad-value'
  | 'missing-option'
  | 'arguments'
  | 'conflicting-options';

/** A usage error (exit 2, code `CLI_USAGE`) that says which rule of the table the line broke. */
export class ArgsError extends UsageError {
  constructor(
    readonly problem: ArgsProblem,
    message: string,
  ) {
    super(message);
  }
}

export const HELP_OPTIONS: OptionTable = {
  help: { type: 'flag', short: 'h', help: 'this help' },
  json: { type: 'flag', help: 'one JSON object as the last line of stdout (errors too)' },
};

/** Commands that work on state: local mode (`--data`, `--allow-loopback`) or the deployed resources. */
export const RUNTIME_OPTIONS: OptionTable = {
  data: { type: 'string', value: 'DIR', help: 'local state folder (default .data)' },
  'allow-loopback': { type: 'flag', help: 'local mode may reach 127.0.0.1 (the demo, tests)' },
  aws: {
    type: 'flag',
    help: "the deployed stack's tables, bucket and queue, named by its outputs (fetching commands need its Upstash, RATE-1/RATE-4)",
  },
  stack: { type: 'string', value: 'NAME', help: 'the stack of --aws (default MandariIngestor)' },
};

export interface ParsedArgs {
  /** By option name as typed (`demo-objects`), numbers converted, flags false when absent. */
  values: Input;
  positionals: string[];
}

function nodeOptions(
  table: OptionTable,
): Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, o] of Object.entries(table)) {
    options[name] = {
      type: o.type === 'flag' ? 'boolean' : 'string',
      ...(o.multiple ? { multiple: true } : {}),
      ...(o.short ? { short: o.short } : {}),
    };
  }
  return options;
}

/** `--name`'s text as a number under its spec, or an `ArgsError('bad-number')`. */
function numberOf(name: string, text: string, spec: OptionSpec): number {
  const n = text.trim() === '' ? Number.NaN : Number(text);
  const range =
    spec.min !== undefined && spec.max !== undefined
      ? ` from ${spec.min} to ${spec.max}`
      : spec.min !== undefined
        ? ` ≥ ${spec.min}`
        : spec.max !== undefined
          ? ` ≤ ${spec.max}`
          : '';
  const wanted = `${spec.integer ? 'a whole number' : 'a number'}${range}`;
  if (
    !Number.isFinite(n) ||
    (spec.integer && !Number.isInteger(n)) ||
    (spec.min !== undefined && n < spec.min) ||
    (spec.max !== undefined && n > spec.max)
  ) {
    throw new ArgsError('bad-number', `--${name} must be ${wanted}, got "${text}"`);
  }
  return n;
}

/**
 * An ISO 8601 date (`2026-11-30`, UTC midnight) or date-time with its offset: a date-time without one
 * would be read in the machine's zone, so the same line would mean different instants on two machines.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** `--name`'s text as an instant, or an `ArgsError('bad-value')`. */
function instantOf(name: string, text: string): Date {
  const at = ISO_INSTANT.test(text) ? new Date(text) : undefined;
  if (at === undefined || Number.isNaN(at.getTime()))
    throw new ArgsError(
      'bad-value',
      `--${name} must be an ISO 8601 date or date-time with offset (2026-11-30T09:00:00Z), got "${text}"`,
    );
  return at;
}

/** `--name`'s text as the choice it names, or an `ArgsError('bad-value')`. */
function choiceOf(name: string, text: string, choices: readonly string[]): string {
  const chosen = choices.find((c) => c.toLowerCase() === text.toLowerCase());
  if (chosen === undefined)
    throw new ArgsError('bad-value', `--${name} must be one of ${choices.join(', ')}, got "${text}"`);
  return chosen;
}

/** One option's text under its spec: a number, an instant, a choice or the text itself. */
function parsedValue(name: string, text: string, spec: OptionSpec): string | number | Date {
  if (spec.type === 'number') return numberOf(name, text, spec);
  if (spec.type === 'instant') return instantOf(name, text);
  return spec.choices === undefined ? text : choiceOf(name, text, spec.choices);
}

/**
 * Strict parse against `table`: parseArgs' own errors become `ArgsError`s, numbers are converted and
 * checked, flags are false when absent, required options present. `what` names the command in messages.
 */
export function parseStrict(argv: string[], table: OptionTable, what = 'the command'): ParsedArgs {
  let raw: {
    values: Record<string, string | boolean | (string | boolean)[] | undefined>;
    positionals: string[];
  };
  try {
    raw = parseArgs({ args: argv, options: nodeOptions(table), allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const message = (error as Error).message;
    // parseArgs explains the `--` escape at length; the option's name is what the operator needs.
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    if (unknown) throw new ArgsError('unknown-option', `unknown option ${unknown[1]}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new ArgsError('missing-value', message);
    if (code.startsWith('ERR_PARSE_ARGS')) throw new ArgsError('unknown-option', message);
    throw error;
  }
  const values: Input = {};
  for (const [name, spec] of Object.entries(table)) {
    const value = raw.values[name];
    if (spec.type === 'flag') values[name] = value === true;
    else if (value === undefined) {
      if (spec.required) throw new ArgsError('missing-option', `${what} needs --${name}`);
    } else {
      values[name] = (
        Array.isArray(value)
          ? value.map((v) => parsedValue(name, String(v), spec))
          : parsedValue(name, String(value), spec)
      ) as Input[string];
    }
  }
  return { values, positionals: raw.positionals };
}

/** Whether an option was given with something in it (`--ids ''` or `--ids ,` names no id). */
function given(value: Input[string]): boolean {
  if (value === undefined || value === false) return false;
  if (typeof value === 'string') return /[^,\s]/.test(value);
  if (Array.isArray(value)) return value.some((v) => given(v));
  return true;
}

/** `spec.oneOf`: exactly one of its options given, or an `ArgsError` naming them. */
export function checkOneOf(values: Input, names: readonly string[] | undefined, what: string): void {
  if (names === undefined) return;
  const present = names.filter((n) => given(values[n]));
  const options = names.map((n) => `--${n}`).join(' or ');
  if (present.length === 0) throw new ArgsError('missing-option', `${what} needs ${options}`);
  if (present.length > 1)
    throw new ArgsError('conflicting-options', `${what} takes one of ${options}, not both`);
}

/** The options of `table` by their input keys (`demo-objects` → `demoObjects`), flags included. */
export function inputOf<T extends OptionTable>(table: T, values: Input): InputOf<T> {
  const input: Input = {};
  for (const name of Object.keys(table)) {
    const value = values[name];
    if (value !== undefined) input[name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
  }
  return input as InputOf<T>;
}

/** The first positional, options read leniently (unknown ones are refused later, by `parseStrict`). */
export function firstPositional(argv: string[], table: OptionTable): string | undefined {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, o] of Object.entries(table))
    options[name] = { type: o.type === 'flag' ? 'boolean' : 'string' };
  return parseArgs({ args: argv, options, allowPositionals: true, strict: false }).positionals[0];
}

export function checkArity(positionals: string[], arity: Arity, what: string): void {
  const [min, max] = arity;
  // An empty word (`bodies list ''`, a shell variable that was not set) is no id, URL or file.
  const empty = positionals.indexOf('');
  if (empty >= 0) throw new ArgsError('arguments', `${what}: argument ${empty + 1} is empty`);
  if (positionals.length < min) {
    throw new ArgsError('arguments', `${what} needs ${min === max ? min : `at least ${min}`} argument(s)`);
  }
  if (positionals.length > max) {
    throw new ArgsError(
      'arguments',
      `${what} takes ${max === 0 ? 'no' : `at most ${max}`} argument(s); got "${positionals.slice(max).join(' ')}"`,
    );
  }
}

/** Help lines for an option table: `  --port P   document preview port`. */
export function optionLines(table: OptionTable): string[] {
  const rows = Object.entries(table).map(([name, o]) => [
    `--${name}${o.type === 'flag' ? '' : ` ${o.value ?? (o.type === 'number' ? 'N' : o.type === 'instant' ? 'ISO' : 'VALUE')}`}${o.multiple ? ' …' : ''}${o.short ? `, -${o.short}` : ''}`,
    `${o.help}${o.choices ? ` (${o.choices.join(', ')})` : ''}${o.required ? ' (required)' : ''}`,
  ]);
  const width = Math.max(0, ...rows.map(([left]) => (left as string).length));
  return rows.map(([left, right]) => `  ${(left as string).padEnd(width)}  ${right}`);
}
