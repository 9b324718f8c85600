export { systemSlotClock } from './clock';
export * from './constants';
export * from './errors';
export { logSlotEvent, SLOT_EVENT_CODES } from './event-log';
export { createHostLedgerFromEnv, createHostSlotsFromEnv, createSlotRedisClient } from './from-env';
export {
  createHostSlots,
  type HostSlotsOptions,
  type HostSlotsStats,
  isSlotLease,
  PacedHostSlots,
} from './host-slots';
export {
  type FloorNote,
  type HostFloor,
  type HostLedger,
  type HostLedgerReading,
  LocalHostLedger,
  processHostLedger,
  RedisHostLedger,
  resetProcessHostLedger,
} from './ledger';
export { HOST_KEY_SUFFIXES, hostKeys } from './scripts';
export type * from './types';
