import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  API_PREFIX,
  createMirrorApiHandler,
  createMirrorApiListener,
  MirrorReader,
} from '../../shared/mirror-api';
import { logger } from '../../shared/observability';
import { createPreviewListener } from '../../shared/preview';
import { mirrorTablePlacement } from '../../shared/store';
import { composeCli } from '../compose';
import type { LocalRuntime } from './runtime';

export interface LocalServePort {
  /** `http://127.0.0.1:<port>`: the preview at `/documents/{docId}`, the API under `/oparl/v1`. */
  url: string;
  systemUrl: string;
  close(): Promise<void>;
}

/**
 * The serve port of `ingestor serve` and `npm start`: the document preview (PRV-1 … PRV-4) and the
 * OParl API over the mirror (docs/mirror-api.md) on one loopback port, over the same cores as the
 * Lambdas. Loopback only: the local endpoint is for the operator's own browser and the portal in
 * development.
 */
export async function startLocalServePort(
  rt: LocalRuntime,
  opts: { port?: number; allowLoopback: boolean },
): Promise<LocalServePort> {
  const preview = await composeCli(rt, { allowLoopback: opts.allowLoopback }).preview();
  const reader = new MirrorReader(rt.clients, {
    bucket: rt.env.BUCKET,
    tables: {
      sources: rt.env.SOURCES_TABLE,
      state: rt.env.STATE_TABLE,
      mirror: mirrorTablePlacement(rt.env),
    },
  });
  const onError = (what: string) => (error: unknown) =>
    logger.error(`${what} failed`, { error: String(error) });
  const previewListener = createPreviewListener(preview.handler, { onError: onError('preview') });
  let listener = previewListener;
  const server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The API's ids are absolute URLs: its handler needs the address the port was given.
  listener = createMirrorApiListener(createMirrorApiHandler({ reader, baseUrl: url }), {
    fallback: previewListener,
    onError: onError('mirror API'),
  });
  return {
    url,
    systemUrl: `${url}${API_PREFIX}/system`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await preview.close();
    },
  };
}
