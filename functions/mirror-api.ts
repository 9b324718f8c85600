import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import { ensureApiIdKey, env } from '../shared/config';
import { composeMirrorApi } from '../shared/mirror-api';
import { logger } from '../shared/observability';

/**
 * The OParl 1.1 API over the mirror (issue 16, docs/mirror-api.md) behind CloudFront: read-only — its
 * role may read the Sources table, the State table's mirror items and `byList` index, and `mirror/`
 * objects, and the key of its ids (one secret), nothing else. No fetch: it never reaches a council server.
 */
// Wired once per instance by `composeMirrorApi` (shared/mirror-api/compose.ts).
const e = env();
const api = composeMirrorApi(e);

export async function handler(event: LambdaFunctionURLEvent): Promise<LambdaFunctionURLResult> {
  try {
    // Issue 25 point 5: the API's ids are keyed; the secret is read on the first request, then cached.
    await ensureApiIdKey(e);
    const response = await api.handle(event);
    return { statusCode: response.status, headers: response.headers, body: response.body };
  } catch (error) {
    logger.error('mirror api failed', { path: event.rawPath, error: String(error) });
    return {
      statusCode: 500,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      body: 'internal error\n',
    };
  }
}
