import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import { createFeedClients } from '../shared/changes';
import { ensureApiIdKey, env, type IngestorEnv } from '../shared/config';
import { createMirrorApiLambda } from '../shared/mirror-api';
import { logger } from '../shared/observability';

/**
 * The OParl 1.1 API over the mirror (issue 16, docs/mirror-api.md) behind CloudFront: read-only — its
 * role may read the Sources table, the State table's mirror items and `byList` index, and `mirror/`
 * objects, and the key of its ids (one secret), nothing else. No fetch: it never reaches a council server.
 */
/** The API function's composition root: the clients (no fetcher, no slots) and the mirror's places. */
function composeMirrorApi(e: IngestorEnv) {
  return createMirrorApiLambda(
    createFeedClients(e),
    { bucket: e.BUCKET, tables: { sources: e.SOURCES_TABLE, state: e.STATE_TABLE } },
    { documents: e.INGESTOR_API_DOCUMENTS },
  );
}

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
