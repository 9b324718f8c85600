import { IngestorError } from '../shared/errors';

/** What every command returns: lines for people and one JSON object for machines (`--json`). */
export interface CommandResult {
  text: string[];
  json: unknown;
  exitCode?: number;
}

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
  } else {
    for (const line of result.text) process.stdout.write(`${line}\n`);
  }
}
