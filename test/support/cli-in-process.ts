import { vi } from 'vitest';
import { main } from '../../cli/ingestor';

/** What an in-process CLI run gave: its exit code, the last stdout line as JSON (else `{}`), all stdout. */
export interface InProcessRun {
  code: number;
  json: Record<string, unknown>;
  stdout: string;
}

/** Runs the CLI in-process (`main`), stdout captured and stderr silenced for the run. */
export async function runCliInProcess(args: string[]): Promise<InProcessRun> {
  const chunks: string[] = [];
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await main(args);
    const stdout = chunks.join('');
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
    } catch {
      // human output
    }
    return { code, json, stdout };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
