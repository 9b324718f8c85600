/**
 * OTH-4: what a geo refresh records as its error besides a failed fetch (shared/other-fetch
 * `otherFetchErrorText`) — fixed German texts for the status page and the CLI, never an exception's
 * message, a stack, a URL or an internal host name.
 */
export const GEO_ERROR_TEXTS = {
  invalidGeoJson: 'Antwort ist kein gültiges GeoJSON',
  emptyAnswer: 'Dienst lieferte keine Pläne; der bisherige Bestand bleibt erhalten',
  pageCap: 'Zu viele Seiten; Abruf abgebrochen, der bisherige Bestand bleibt erhalten',
  invalidConfig: 'Eintrag der Geoquelle ist ungültig',
  storage: 'Speichern fehlgeschlagen',
  paperLinks: 'Verknüpfung mit Vorlagen fehlgeschlagen; die Pläne sind gespeichert',
} as const;
