/**
 * The mirror's keys live in shared/store (keys.ts, issue 29 item 1: one home for every key); they are
 * re-exported here for the mirror's users.
 */
export {
  API_PREFIX,
  apiIdHash,
  apiObjectPath,
  committedAtOfListSort,
  INLINE_ATTRIBUTE,
  INLINE_ITEM_MAX_BYTES,
  idHash,
  indexPartition,
  itemSizeBound,
  LEGACY_LIST_ATTRIBUTES,
  LIST_COUNT_PREFIX,
  LIST_PARTITION_ATTRIBUTE,
  LIST_SORT_ATTRIBUTE,
  LIST_SORT_PATTERN,
  legacyMirrorKey,
  listBound,
  listCountKey,
  listPartition,
  listSort,
  listSortOfHash,
  listTime,
  lookupKey,
  MIRROR_PREFIX,
  mirrorKey,
  mirrorKeyOfHash,
  mirrorTypePrefix,
} from '../store';
