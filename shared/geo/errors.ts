/**
 * OTH-4: what a geo refresh records as its error — fixed German texts for the status page and the
 * CLI, never an exception's message, a stack, a URL or an internal host name.
 */
export const GEO_ERROR_TEXTS = {
  invalidGeoJson: 'Antwort ist kein gültiges GeoJSON',
  emptyAnswer: 'Dienst lieferte keine Pläne; der bisherige Bestand bleibt erhalten',
  pageCap: 'Zu viele Seiten; Abruf abgebrochen, der bisherige Bestand bleibt erhalten',
  unreachable: 'Dienst nicht erreichbar',
  timeout: 'Dienst antwortete nicht rechtzeitig',
  tooLarge: 'Antwort zu groß',
  addressRefused: 'Adresse des Dienstes ist nicht erlaubt',
  paced: 'Kein freier Abruf-Platz beim Server (Takt); später erneut',
  breaker: 'Dienst nach wiederholten Fehlern in diesem Lauf nicht weiter angefragt',
  invalidConfig: 'Eintrag der Geoquelle ist ungültig',
  storage: 'Speichern fehlgeschlagen',
  paperLinks: 'Verknüpfung mit Vorlagen fehlgeschlagen; die Pläne sind gespeichert',
  failed: 'Abruf fehlgeschlagen',
} as const;

/** "Dienst antwortete mit HTTP 503". */
export function httpStatusText(status: number): string {
  return `Dienst antwortete mit HTTP ${status}`;
}

const BY_CODE: Readonly<Record<string, string>> = {
  NETWORK: GEO_ERROR_TEXTS.unreachable,
  BODY_INCOMPLETE: GEO_ERROR_TEXTS.unreachable,
  TIMEOUT: GEO_ERROR_TEXTS.timeout,
  TOO_MANY_REDIRECTS: GEO_ERROR_TEXTS.failed,
  RESPONSE_TOO_LARGE: GEO_ERROR_TEXTS.tooLarge,
  ADDRESS_NOT_PUBLIC: GEO_ERROR_TEXTS.addressRefused,
  HOST_SLOT_TIMEOUT: GEO_ERROR_TEXTS.paced,
  RUN_DEADLINE: GEO_ERROR_TEXTS.paced,
  CIRCUIT_OPEN: GEO_ERROR_TEXTS.breaker,
};

/** The fixed text for a failed fetch. */
export function geoErrorText(error: unknown): string {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  if (typeof status === 'number') return httpStatusText(status);
  return (typeof code === 'string' && BY_CODE[code]) || GEO_ERROR_TEXTS.failed;
}
