import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { LambdaFunctionURLEvent } from 'aws-lambda';
import { env, warmRuntime } from '../shared/config';
import { logger } from '../shared/observability';
import { composePreview, type PreviewResponse, previewRequestOf } from '../shared/preview';

/**
 * Preview Lambda behind CloudFront and a Function URL in RESPONSE_STREAM mode (SPEC PRV-1 … PRV-4): a
 * stored copy is a redirect to a short-lived presigned S3 URL; a file fetched on demand is streamed to
 * the visitor as it arrives from the source (no 6 MB buffered-response limit), and the invocation ends
 * only after a PRV-3 copy is stored. The visitor address (PRV-2, only ever a salted hash) is the viewer
 * CloudFront names — the URL admits no other caller (AWS_IAM, origin access control); the query string
 * is what CloudFront forwards (`download` alone).
 */
// Kept while the instance is warm; a failed build or a rotated Upstash token builds anew.
const runtime = warmRuntime(env, () => composePreview(env()));

export async function handlePreviewEvent(event: LambdaFunctionURLEvent): Promise<PreviewResponse> {
  const rt = await runtime.get();
  return rt.handler.handle(previewRequestOf(event));
}

async function stream(event: LambdaFunctionURLEvent, responseStream: NodeJS.WritableStream): Promise<void> {
  let response: PreviewResponse;
  try {
    response = await handlePreviewEvent(event);
  } catch (error) {
    logger.error('preview failed', { error: String(error) });
    response = {
      status: 500,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
      body: 'internal error\n',
    };
  }
  const out = awslambda.HttpResponseStream.from(responseStream as never, {
    statusCode: response.status,
    headers: response.headers,
  });
  const body = response.body;
  const source = body === undefined || typeof body === 'string' ? Readable.from([body ?? '']) : body;
  await pipeline(source, out).catch((error: unknown) =>
    logger.warn('preview stream ended early', { error: String(error) }),
  );
  await response.after;
}

// `awslambda` exists only inside the Lambda Node runtime; tests import `handlePreviewEvent`.
export const handler =
  typeof awslambda === 'undefined'
    ? undefined
    : awslambda.streamifyResponse((event, out) => stream(event, out));
