import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../../shared/observability/logger';
import { createPreviewListener, createPreviewRuntime } from '../../shared/preview';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, UsageError } from '../output';

/**
 * `ingestor serve --data DIR [--port P] [--allow-loopback]`: the preview endpoint (PRV-1 … PRV-4) on
 * localhost over the same core as the Lambda, until SIGINT/SIGTERM. Prints its address.
 */
export async function serveCommand(
  rt: LocalRuntime,
  opts: { port?: string; allowLoopback: boolean; signal?: AbortSignal; onListening?: (url: string) => void },
): Promise<CommandResult> {
  const port = opts.port === undefined ? 0 : Number.parseInt(opts.port, 10);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`invalid --port ${opts.port}`);
  const preview = await createPreviewRuntime(
    { ...rt.env, INGESTOR_ALLOW_LOOPBACK: opts.allowLoopback },
    { clients: rt.clients },
  );
  const server = createServer(
    createPreviewListener(preview.handler, {
      onError: (error) => logger.error('preview failed', { error: String(error) }),
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: the local endpoint is for the operator's own browser and the portal in development.
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.stdout.write(`preview listening on ${url}/documents/{docId}\n`);
  opts.onListening?.(url);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    opts.signal?.addEventListener('abort', stop, { once: true });
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await preview.close();
  return { text: ['preview stopped'], json: { url, stopped: true } };
}
