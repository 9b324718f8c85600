import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * The operator CLI as an operator runs it: `node cli/bin.mjs …` in its own process, stdout and stderr
 * captured, the exit code and the wall time measured. `traceLoads` preloads a recorder of the packages
 * the process loaded (`LOADED …` on stderr at exit) — the proof that `--help` loads no stand-in.
 */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The heavy packages the process loaded (only with `traceLoads`). */
  loaded: string[];
}

export const TRACE_LOADS = join(process.cwd(), 'test/support/trace-loads.cjs');

export function spawnCli(
  args: string[],
  opts: { traceLoads?: boolean; env?: Record<string, string>; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<CliRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...(opts.traceLoads ? ['--require', TRACE_LOADS] : []), 'cli/bin.mjs', ...args],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const trace = /^LOADED (.*)$/m.exec(stderr);
      resolve({
        code,
        signal,
        stdout,
        stderr: stderr.replace(/^LOADED .*\n?/m, ''),
        ms: performance.now() - started,
        loaded: trace?.[1] ? trace[1].split(',').filter(Boolean) : [],
      });
    });
    opts.onSpawn?.(child);
  });
}

/** The last line of stdout as JSON (the `--json` contract). */
export function lastJson(run: CliRun): Record<string, unknown> {
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? 'null') as Record<string, unknown>;
}
