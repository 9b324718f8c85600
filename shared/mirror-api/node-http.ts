import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { API_PREFIX } from './constants';
import type { MirrorApiHandler } from './handler';

/** Whether a path belongs to the API (the rest of the serve port is the preview's). */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

/** node:http adapter of the API core (`ingestor serve`, tests, bench); other paths go to `fallback`. */
export function createMirrorApiListener(
  handler: MirrorApiHandler,
  opts: { fallback?: RequestListener; onError?: (error: unknown) => void } = {},
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!isApiPath(url.pathname)) {
      if (opts.fallback) opts.fallback(req, res);
      else res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    const ifNoneMatch = req.headers['if-none-match'];
    handler
      .handle({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}),
      })
      .then((response) => {
        res.writeHead(response.status, response.headers);
        res.end(response.body);
      })
      .catch((error: unknown) => {
        opts.onError?.(error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('internal error\n');
      });
  };
}
