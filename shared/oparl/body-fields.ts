import {
  type BodyRecord,
  bodySlugBase,
  isDeleted,
  LIST_CATALOGUE,
  type OParlObject,
  objectId,
  textValue,
} from '../engine';
import { idHash } from '../mirror';

/**
 * A Body of the body list as the State table's `BODY#` record needs it: fields, key and slug base. The
 * sync engine (`processBody`) and `sources add` both derive them here, so a body recorded by `sources
 * add` is the body the first sync refreshes: same `bodyKey`, same slug (ONB-4: unlisted).
 */
export interface BodyFields {
  fields: Omit<
    BodyRecord,
    'slug' | 'listed' | 'firstSeenAt' | 'lastCompleteSyncStart' | 'lastCompleteFullSyncStart'
  >;
  /** Slug before uniqueness: shortName, else name, transliterated (shared/oparl `bodySlugBase`). */
  slugBase: string;
}

/** `bodyKey` = first 16 hex of SHA-256(body id): the `BODY#<bodyKey>` key of the State table. */
export function bodyKeyOf(bodyId: string): string {
  return idHash(bodyId).slice(0, 16);
}

/** Undefined for deleted entries and entries without an id. */
export function bodyFieldsOf(item: OParlObject, pageUrl: string, nowIso: string): BodyFields | undefined {
  const id = objectId(item);
  if (id === undefined || isDeleted(item)) return undefined;
  const lists: BodyRecord['lists'] = {};
  for (const entry of LIST_CATALOGUE) {
    let url = textValue(item[entry.bodyField]);
    // Some 1.0 servers name the term list like the embedded field; only a URL string counts.
    if (url === undefined && entry.list === 'legislativeTerm') url = textValue(item.legislativeTerm);
    if (url === undefined) continue;
    try {
      const u = new URL(url, pageUrl);
      if (u.protocol === 'http:' || u.protocol === 'https:') lists[entry.list] = u.toString();
    } catch {
      // not a URL: the list is not offered
    }
  }
  const shortName = textValue(item.shortName);
  const version = textValue(item.type)?.match(/\/(\d+\.\d+)\//)?.[1];
  return {
    fields: {
      bodyKey: bodyKeyOf(id),
      id,
      name: textValue(item.name) ?? shortName ?? id,
      ...(shortName !== undefined ? { shortName } : {}),
      lists,
      ...(version !== undefined ? { oparlVersion: version } : {}),
      lastSeenAt: nowIso,
    },
    slugBase: bodySlugBase(item),
  };
}
