/**
 * Other fetches (SPEC OTH-1…3, "Andere Abrufe"): geo services and streaming providers through the
 * polite fetcher's `service` mode. Geo sources (shared/geo) and broadcasts build on `createOtherFetch`.
 */

export { httpStatusText, OTHER_FETCH_ERROR_TEXTS, otherFetchErrorText } from './errors';
export {
  type CouncilHostIntervals,
  createOtherFetch,
  OTHER_FETCH_INTERVAL_SECONDS,
  type OtherFetch,
  type OtherFetchDeps,
  type OtherFetchRequest,
} from './fetch';
