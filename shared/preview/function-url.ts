import type { PreviewFunctionUrlEvent, PreviewRequest } from './types';
import { visitorAddressOf } from './visitor-address';

/**
 * The preview request of a Lambda Function URL event (functions/preview.ts, behind CloudFront): the path,
 * the query string CloudFront forwards (PREVIEW_DOWNLOAD_PARAM alone), the visitor CloudFront names.
 */
export function previewRequestOf(event: PreviewFunctionUrlEvent): PreviewRequest {
  return {
    method: event.requestContext.http.method,
    path: event.rawPath,
    query: new URLSearchParams(event.rawQueryString ?? ''),
    visitorAddress: visitorAddressOf(event.headers, event.requestContext.http.sourceIp),
  };
}
