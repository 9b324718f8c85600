import { BROADCAST_ERROR_TEXTS } from './constants';

/**
 * OTH-5 (issue 17): a failed poll is recorded as one of the fixed texts — chosen by the error's stable
 * `code` (shared/fetch, shared/net), never built from its message, which names URLs, hosts and causes.
 */
export function broadcastErrorText(error: unknown): string {
  const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
  switch (code) {
    case 'HTTP_STATUS':
      return typeof status === 'number' && Number.isInteger(status)
        ? BROADCAST_ERROR_TEXTS.httpStatus(status)
        : BROADCAST_ERROR_TEXTS.other;
    case 'NETWORK':
    case 'BODY_INCOMPLETE':
      return BROADCAST_ERROR_TEXTS.unreachable;
    case 'TIMEOUT':
      return BROADCAST_ERROR_TEXTS.timeout;
    case 'RESPONSE_TOO_LARGE':
      return BROADCAST_ERROR_TEXTS.tooLarge;
    case 'ADDRESS_NOT_PUBLIC':
    case 'REDIRECT_SCHEME':
    case 'REDIRECT_INVALID':
    case 'TOO_MANY_REDIRECTS':
      return BROADCAST_ERROR_TEXTS.refused;
    case 'CIRCUIT_OPEN':
    case 'HOST_SLOT_TIMEOUT':
      return BROADCAST_ERROR_TEXTS.paused;
    default:
      return BROADCAST_ERROR_TEXTS.other;
  }
}
