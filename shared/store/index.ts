/**
 * DynamoDB: clients, tables, provisioning, the Sources table and the schedule state (leases, claims), store outages. Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export { type AwsClients, awsClientBase, createAwsClients, destroyAwsClients } from './clients';
export {
  type CommittedKey,
  DIGEST_PREFIX,
  type ListDigestKey,
  ListDigestRepository,
  listDigestObjectKey,
} from './list-digests';
export { StoreUnavailableError, storeOutageOf } from './outage';
export { type ProvisionedLocal, provisionLocal } from './provision';
export {
  acquireSyncLease,
  claimSyncRun,
  getSourceState,
  listLeasedSourceStates,
  listSourceStates,
  listStateSourceIds,
  patchSourceState,
  releaseSyncClaim,
  releaseSyncLease,
  requestManualSync,
  type SourceStateItem,
  type SyncRunClaim,
} from './source-state';
export {
  getSourceItem,
  idOf,
  loadAllSources,
  loadSource,
  type OtherItemKind,
  OtherItemNotFoundError,
  putOtherItem,
  putSourceItem,
  type SourcesLoad,
  setOtherItemActive,
} from './sources';
export {
  DOCUMENTS_TABLE,
  LEGACY_LIST_INDEX,
  LIST_INDEX,
  SOURCES_TABLE,
  STATE_TABLE,
  type TableDefinition,
} from './tables';
