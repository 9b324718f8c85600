/**
 * Scraper sources (issue 8): council systems without an OParl API, read from their HTML pages (ALLRIS 3,
 * SessionNet) into the same OParl-shaped objects as an OParl sync. Entry for the sync function:
 * `createScraperSyncEngine`; for the onboarding probe (ONB-1): `detectProduct`, `oparlEndpointCandidates`,
 * `oparlOffering`; pure parsers per product in `allris/` and `sessionnet/`.
 */
export { adapterFor, allrisAdapter, type ScrapeAdapter, sessionNetAdapter } from './adapter';
export * from './constants';
export * from './decode';
export * from './detect';
export { createScraperSyncEngine, scrapeSource } from './engine';
export * from './errors';
export * from './gate';
export * from './oparl-shape';
export {
  engineReportOfScrape,
  type ScrapeReport,
  type ScrapeRunOptions,
  type ScraperEngineDeps,
} from './run';
export * from './types';
