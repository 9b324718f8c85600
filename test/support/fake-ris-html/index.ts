// Fake council website for the scraper tests and bench (issue 8). See server.ts.
export * from './fixtures';
export { type CalendarEntry, encodeCp1252, type GateKind, gatePage } from './pages';
export * from './server';
