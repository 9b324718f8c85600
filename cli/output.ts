import { IngestorError, isIngestorError } from '../shared/errors';

/** What every command returns: lines for people and one JSON object for machines (`--json`). */
export interface CommandResult {
  text: string[];
  json: unknown;
  /** Non-zero: the command failed; its lines then go to stderr (stdout carries results only). */
  exitCode?: number;
}

/** Exit codes of every command: done, failed, a usage error, and stopped by Ctrl-C (128 + SIGINT). */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

export class UsageError extends IngestorError {
  constructor(message: string) {
    super('CLI_USAGE', message);
  }
}

/** Progress for people; goes to stderr under `--json` so stdout stays one parseable line at the end. */
export function progress(json: boolean, line: string): void {
  (json ? process.stderr : process.stdout).write(`${line}\n`);
}

export function emit(result: CommandResult, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result.json)}\n`);
    return;
  }
  const out = (result.exitCode ?? 0) === 0 ? process.stdout : process.stderr;
  for (const line of result.text) out.write(`${line}\n`);
}

const SYSTEM_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'not a folder',
};

/** A failure as the operator reads it: one clear line, and the JSON object of `--json`. */
export function errorOutput(err: unknown): { text: string; object: Record<string, unknown> } {
  if (isIngestorError(err)) {
    // A usage error says which rule of the command table the line broke (`ArgsError.problem`).
    const problem = (err as { problem?: unknown }).problem;
    return {
      text: `error: ${err.message}`,
      object: { error: err.code, message: err.message, ...(typeof problem === 'string' ? { problem } : {}) },
    };
  }
  const e = err as { code?: unknown; path?: unknown; syscall?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : 'ERROR';
  if (typeof e?.path === 'string' && SYSTEM_ERRORS[code] !== undefined) {
    const message = `cannot ${e.syscall === 'open' ? 'read' : String(e.syscall ?? 'use')} ${e.path}: ${SYSTEM_ERRORS[code]}`;
    return { text: `error: ${message}`, object: { error: code, message, path: e.path } };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { text: `error (${code}): ${message}`, object: { error: code, message } };
}
