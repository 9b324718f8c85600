/**
 * The Sources table holds more than council sources: items of other fetches (OTH) — geo sources,
 * broadcasts — carry an `itemKind`. Council items never have one, so every reader of council sources
 * (`loadAllSources`) sets these aside before the council schema sees them, and a geo item is never
 * mistaken for a broken council source. Each kind has its own schema (`parseGeoSourceItem`, …).
 */
export function otherItemKindOf(raw: unknown): string | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const kind = (raw as { itemKind?: unknown }).itemKind;
  return typeof kind === 'string' ? kind : undefined;
}
