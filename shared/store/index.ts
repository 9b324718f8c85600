/**
 * Every table, the bucket and the queues (issue 29 item 1): clients, tables, provisioning, every key
 * (keys.ts), and typed repositories with named operations — the Sources table, the schedule state
 * (leases, claims), the takedown registry, bodies' records, Documents items, the mirror's index and
 * records, the bucket's objects — and store outages. Domain code calls these and never builds an
 * `@aws-sdk` command (test/repo/store-owns-storage.test.ts). Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export { BodyRecords } from './body-records';
export { BroadcastItems, type BroadcastMeetingReading } from './broadcast-items';
export { type AwsClients, awsClientBase, createAwsClients, destroyAwsClients } from './clients';
export {
  type BucketContext,
  isConditionFailure,
  type StoreTables,
  type TableContext,
  unlessConditionFails,
} from './context';
export { DeletionRuns } from './deletion-runs';
export { DocumentItems } from './document-items';
export {
  BY_NEXT_ATTEMPT,
  BY_SOURCE,
  type DocumentPosition,
  DocumentQueue,
  type SourceSideChange,
} from './document-queue';
export { type BusEvent, EventBus } from './event-bus';
export { FeedOutbox, OUTBOX_PARTITION, type OutboxEvent } from './feed-outbox';
export { createGeoItems, type GeoItemsContext } from './geo-items';
export {
  dueIndexCopiesOf,
  type IndexCopies,
  indexCopiesOfUpdate,
  indexWriteUnits,
  STATE_UNCHANGING_ATTRIBUTES,
  type UpdateShape,
  updatedAttributes,
} from './index-writes';
export {
  INLINE_QUALITY,
  type InlineCopy,
  InlineCopyCorruptError,
  packInline,
  packInlineText,
  unpackInline,
} from './inline-copy';
export { storedItemBytes, storedNumberBytes, WRITE_UNIT_BYTES } from './item-bytes';
export * from './keys';
export {
  BODY_PAGE_DIGEST_ATTRIBUTE,
  type CommittedKey,
  DIGEST_PREFIX,
  type ListDigestKey,
  ListDigestRepository,
  listDigestObjectKey,
} from './list-digests';
export {
  heldCondition,
  type IndexItem,
  indexKey,
  MirrorIndex,
  type MirrorObjectRef,
  type MirrorTablePlacement,
  markedItem,
  mirrorItemTables,
  mirrorTablePlacement,
  TAKEN_DOWN,
} from './mirror-index';
export {
  type MirrorMoveCheckpoint,
  type MirrorMoveStep,
  MirrorTableMove,
} from './mirror-move';
export { type MirrorRebuildCheckpoint, MirrorRebuildCheckpoints } from './mirror-rebuild';
export { type MirrorRecordKind, MirrorRecords } from './mirror-records';
export {
  BucketObjects,
  isMissingKey,
  isMissingObject,
  type PutOptions,
  StoredObjectUnreadableError,
  type UploadOptions,
} from './objects';
export { type StoreRefusal, StoreUnavailableError, storeOutageOf, storeRefusalOf } from './outage';
export { compressText, decompressText } from './packed-item';
export { PartitionItems, SourceSyncItems, withoutKeys } from './partition-items';
export { PhotoMarks } from './photo-marks';
export { type ProvisionedLocal, provisionLocal } from './provision';
export { RobotsCacheObjects } from './robots-cache';
export { type SampleWalkCursor, SampleWalks } from './sample-walks';
export {
  acquireSyncLease,
  claimSyncRun,
  getSourceState,
  getSourceStates,
  getStateItem,
  LEASE_ROOM_BYTES,
  listSourceStates,
  listStateSourceIds,
  patchSourceState,
  readSourceStates,
  releaseSyncClaim,
  releaseSyncLease,
  releaseSyncRun,
  requestManualSync,
  type SourceStateItem,
  type SyncRunClaim,
} from './source-state';
export {
  getSourceItem,
  type HostSourceEntry,
  idOf,
  listHostSources,
  loadAllSources,
  loadSource,
  type OtherItemKind,
  OtherItemNotFoundError,
  putOtherItem,
  putSourceItem,
  type SourcesLoad,
  setOtherItemActive,
  stampSourceHostKey,
} from './sources';
export {
  type QueueContext,
  type QueueDepth,
  type QueuedMessage,
  SQS_BATCH_MAX,
  SyncQueue,
} from './sync-queue';
export {
  DOCUMENTS_TABLE,
  DUE_INDEX,
  DUE_INDEX_ATTRIBUTES,
  LEGACY_LIST_INDEX,
  LIST_INDEX,
  MIRROR_TABLE,
  MIRROR_TABLE_PHASES,
  type MirrorTablePhase,
  RETIRED_LEASE_INDEX,
  retiringIndexes,
  SOURCES_BY_HOST_INDEX,
  SOURCES_TABLE,
  STATE_TABLE,
  TABLES,
  type TableDefinition,
} from './tables';
export {
  type TakedownItem,
  type TakedownItemMark,
  TakedownItems,
  type TakedownRemoval,
  type TakedownScope,
} from './takedowns';
