import type { LocalRuntime } from '../local/runtime';
import { startLocalServePort } from '../local/serve-port';
import type { CommandResult } from '../output';
import type { ServeInput } from '.';

/**
 * `ingestor serve --data DIR [--port P] [--allow-loopback]`: on one localhost port the preview endpoint
 * (PRV-1 … PRV-4) and the OParl 1.1 API over the mirror (docs/mirror-api.md), over the same cores as
 * the Lambdas, until SIGINT/SIGTERM. Prints both addresses.
 */
export async function serveCommand(
  rt: LocalRuntime,
  opts: ServeInput & { allowLoopback: boolean; signal?: AbortSignal; onListening?: (url: string) => void },
): Promise<CommandResult> {
  // A whole number 0…65535 (the parser's check); 0: a free port.
  const served = await startLocalServePort(rt, { port: opts.port ?? 0, allowLoopback: opts.allowLoopback });
  const { url } = served;
  process.stdout.write(`preview listening on ${url}/documents/{docId}\n`);
  process.stdout.write(`OParl API over the mirror: ${served.systemUrl}\n`);
  opts.onListening?.(url);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    opts.signal?.addEventListener('abort', stop, { once: true });
  });
  await served.close();
  return { text: ['preview stopped'], json: { url, systemUrl: served.systemUrl, stopped: true } };
}
