/**
 * Small generic helpers with no domain and no I/O. Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export { createGate, type Gate } from './gate';
export { HostKeyError, hostKey, hostKeyOrEmpty, hostKeyOrUndefined } from './host-key';
export { mapLimit } from './map-limit';
export { DAY_MS, HOUR_MS, MINUTE_MS } from './time';
