import { type FetchErrorCode, MAX_REDIRECTS } from '../fetch';

/**
 * OTH-4 / OTH-5: what a failed other fetch (a geo service, a streaming provider) records — one fixed
 * German text per fetcher error `code`, for the status pages and the CLI (on-call reads them,
 * municipalities may see them). Never an exception's message, a stack, a URL or an internal host name:
 * the text is chosen by the stable code, never built from the message. Both kinds call the other end a
 * "Dienst", so one table serves both; each kind keeps its own texts for what it reads (GeoJSON, HLS).
 */
export const OTHER_FETCH_ERROR_TEXTS = {
  unreachable: 'Dienst nicht erreichbar',
  timeout: 'Dienst antwortete nicht rechtzeitig',
  tooLarge: 'Antwort ist zu groß',
  addressRefused: 'Adresse des Dienstes ist nicht erlaubt',
  // The published rule's words (RED-1: "Mehr als fünf Weiterleitungen beenden den Abruf mit einem Fehler").
  tooManyRedirects: `Mehr als ${MAX_REDIRECTS} Weiterleitungen; Abruf abgebrochen`,
  redirectRefused: 'Ungültige oder unzulässige Weiterleitung; nicht gefolgt',
  // A slot wait covers the host's pace and a Retry-After (RATE-8); both are the server's, not ours.
  paced: 'Kein freier Abruf-Platz beim Server (Takt oder Retry-After); später erneut',
  breaker: 'Dienst nach wiederholten Fehlern in diesem Lauf nicht weiter angefragt',
  runDeadline: 'Zeit des Laufs abgelaufen; später erneut',
  failed: 'Abruf fehlgeschlagen',
} as const;

/** "Dienst antwortete mit HTTP 503" (OTH-4's published example). */
export function httpStatusText(status: number): string {
  return `Dienst antwortete mit HTTP ${status}`;
}

type CodeOfText = FetchErrorCode | 'ADDRESS_NOT_PUBLIC';

const TEXT_BY_CODE: Readonly<Partial<Record<CodeOfText, string>>> = {
  NETWORK: OTHER_FETCH_ERROR_TEXTS.unreachable,
  BODY_INCOMPLETE: OTHER_FETCH_ERROR_TEXTS.unreachable,
  TIMEOUT: OTHER_FETCH_ERROR_TEXTS.timeout,
  RESPONSE_TOO_LARGE: OTHER_FETCH_ERROR_TEXTS.tooLarge,
  ADDRESS_NOT_PUBLIC: OTHER_FETCH_ERROR_TEXTS.addressRefused,
  TOO_MANY_REDIRECTS: OTHER_FETCH_ERROR_TEXTS.tooManyRedirects,
  REDIRECT_SCHEME: OTHER_FETCH_ERROR_TEXTS.redirectRefused,
  REDIRECT_INVALID: OTHER_FETCH_ERROR_TEXTS.redirectRefused,
  HOST_SLOT_TIMEOUT: OTHER_FETCH_ERROR_TEXTS.paced,
  CIRCUIT_OPEN: OTHER_FETCH_ERROR_TEXTS.breaker,
  RUN_DEADLINE: OTHER_FETCH_ERROR_TEXTS.runDeadline,
};

/**
 * The fixed text for a failed other fetch. Only `HTTP_STATUS` with an integer status names the
 * status: a `status` on an error of another code (or on anything thrown) is no answer of the service.
 */
export function otherFetchErrorText(error: unknown): string {
  const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
  if (code === 'HTTP_STATUS') {
    return Number.isInteger(status) ? httpStatusText(status as number) : OTHER_FETCH_ERROR_TEXTS.failed;
  }
  return (typeof code === 'string' && TEXT_BY_CODE[code as CodeOfText]) || OTHER_FETCH_ERROR_TEXTS.failed;
}
