import type { FetchEvent } from '../shared/fetch';

/**
 * Progress of a long operation for a person at a terminal: one status line on stderr, redrawn in place
 * (what is being done, done/total where known, the current host, requests so far). Without a terminal
 * — a pipe, a log file, a test — there is no status line at all, and stdout (`--json` included) never
 * carries progress. Milestones (`say`) are printed either way.
 */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): unknown;
}

export interface Progress {
  /** A line worth keeping (a decision, a result): stdout, or stderr under `--json`. */
  say(line: string): void;
  /** The current step, e.g. `files 12/40`. */
  step(label: string, done?: number, total?: number, host?: string): void;
  /** One request of the fetcher (counted; its host becomes the current one). */
  request(event: FetchEvent): void;
  readonly requests: number;
  /** Clears the status line (before the result is printed). */
  end(): void;
}

/** Redraws at most this often: a fetch pace of 1/s needs no more, a files pass on S3 copies may. */
const REDRAW_MS = 100;

export function createProgress(opts: {
  json: boolean;
  status?: ProgressStream;
  lines?: ProgressStream;
  now?: () => number;
}): Progress {
  const status = opts.status ?? process.stderr;
  const lines = opts.lines ?? (opts.json ? process.stderr : process.stdout);
  const now = opts.now ?? Date.now;
  const live = status.isTTY === true;
  let requests = 0;
  let label = '';
  let host = '';
  let shown = false;
  let drawnAt = Number.NEGATIVE_INFINITY;

  const draw = (force = false) => {
    if (!live || (!force && now() - drawnAt < REDRAW_MS) || (label === '' && requests === 0)) return;
    drawnAt = now();
    const parts = [label, host, `${requests} request${requests === 1 ? '' : 's'}`].filter(Boolean);
    const width = Math.max(20, (status.columns || 80) - 1);
    status.write(`\r\x1b[K${parts.join(' · ').slice(0, width)}`);
    shown = true;
  };
  const clear = () => {
    if (shown) status.write('\r\x1b[K');
    shown = false;
  };

  return {
    say(line) {
      clear();
      lines.write(`${line}\n`);
      draw(true);
    },
    step(next, done, total, currentHost) {
      label = done === undefined ? next : `${next} ${done}/${total ?? '?'}`;
      if (currentHost !== undefined) host = currentHost;
      draw(done !== undefined && done === total);
    },
    request(event) {
      if (event.kind !== 'request') return;
      requests += 1;
      host = event.host;
      draw();
    },
    get requests() {
      return requests;
    },
    end() {
      clear();
    },
  };
}
