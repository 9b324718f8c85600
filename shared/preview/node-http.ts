import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import type { PreviewHandler } from './handler';
import type { PreviewRequest, PreviewResponse } from './types';

/**
 * node:http adapter of the preview core (`ingestor serve`, tests, bench). The visitor address is the
 * socket's peer unless `visitorOf` says otherwise (the bench simulates many visitors on loopback).
 */
export function createPreviewListener(
  handler: PreviewHandler,
  opts: { visitorOf?: (req: IncomingMessage) => string; onError?: (error: unknown) => void } = {},
): RequestListener {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const request: PreviewRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      visitorAddress: opts.visitorOf?.(req) ?? req.socket.remoteAddress ?? 'unknown',
    };
    handler
      .handle(request)
      .then((response) => writeResponse(res, response))
      .catch((error: unknown) => {
        opts.onError?.(error);
        if (!res.headersSent) {
          res.writeHead(500, {
            'content-type': 'text/plain; charset=utf-8',
            'x-content-type-options': 'nosniff',
          });
        }
        res.end('internal error\n');
      });
  };
}

export async function writeResponse(res: ServerResponse, response: PreviewResponse): Promise<void> {
  res.writeHead(response.status, response.headers);
  const body = response.body;
  if (body === undefined || typeof body === 'string') {
    res.end(body ?? '');
  } else {
    await new Promise<void>((resolve) => {
      pipeline(body as Readable, res, () => resolve());
    });
  }
  await response.after;
}
