import type { AwsClients } from '../store';
import { API_BASE_HEADER } from './constants';
import { type ApiResponse, createMirrorApiHandler, type MirrorApiHandler } from './handler';
import { MirrorReader, type MirrorReaderConfig } from './reader';

/**
 * The API as a Lambda behind CloudFront (a Function URL only CloudFront may call, issue 16): the Function
 * URL event in, the handler's response out. The public base URL of ids and links is what CloudFront's
 * viewer-request function names in `API_BASE_HEADER` (the distribution's domain, or a custom one); the
 * Function URL's own domain is only the fallback. One handler per base URL, kept while warm.
 */
export interface FunctionUrlRequest {
  rawPath: string;
  rawQueryString?: string;
  headers?: Record<string, string | undefined>;
  requestContext: { domainName: string; http: { method: string } };
}

export interface MirrorApiLambda {
  handle(event: FunctionUrlRequest): Promise<ApiResponse>;
}

export function createMirrorApiLambda(
  clients: Pick<AwsClients, 'doc' | 's3'>,
  config: MirrorReaderConfig,
  opts: { documents?: boolean } = {},
): MirrorApiLambda {
  const reader = new MirrorReader(clients, config);
  const handlers = new Map<string, MirrorApiHandler>();
  return {
    handle(event) {
      const headers = event.headers ?? {};
      const base = headers[API_BASE_HEADER] ?? `https://${event.requestContext.domainName}`;
      let handler = handlers.get(base);
      if (!handler) {
        handler = createMirrorApiHandler({ reader, baseUrl: base, ...opts });
        handlers.set(base, handler);
      }
      const ifNoneMatch = headers['if-none-match'];
      return handler.handle({
        method: event.requestContext.http.method,
        path: event.rawPath,
        query: new URLSearchParams(event.rawQueryString ?? ''),
        ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}),
      });
    },
  };
}
