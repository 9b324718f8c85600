/**
 * Hosts (issue 27, RATE-9 "one host, one budget"), pure: the host model, per-host admission of sync
 * runs, the fair-share stretch of a saturated host and the full-sync budget of a host's window.
 * Time comes in as an argument; nothing here does I/O.
 *
 * Exported signatures (the fleet bench imports these):
 * - `expectedRequests(state, kind): number` — a run's expected requests, learnt from the source's last
 *   runs of that kind (`SourceScheduleState.recentRuns`), `DEFAULT_EXPECTED_REQUESTS` at first.
 * - `secondsPerRequestOf(state): number | undefined` — learnt seconds per request.
 * - `hostModelsOf(sources: HostSourceInput[], conditions?: Map<host, HostConditions>, nowMs?): Map<host, HostModel>`
 *   — capacity (pace − other fetches' share), demand, utilisation, stretch, runLimit per host key.
 * - `admitRuns({ due: DueRun[], running: RunningRun[], hosts, settings, fullSyncBehind? }): Admission`
 *   — `{ start: SourceDecision[], waiting: WaitingRun[], queuedByHost }` (SCH-5, FULL-3, RATE-4, RATE-9).
 * - `decideOnHost({ source, state, now, settings, model, decided? }): SourceDecision` — RATE-9 fair share:
 *   `decideSource` on the source's own cycles (SCH-3's quiet streak × the stretch, `ownCycleState`),
 *   then `stretchDecision(decision, { state, model, now, own })` (due after the factor's turns of its own
 *   cadence, counted per period: `ownTurnsWaited`/`ownTurnsDueMs`, ./turns.ts); on a host with capacity
 *   exactly `decideSource`. `ownIntervalMinutes(input, stretch)`: the interval the model's demand counts.
 * - `planHostFullSyncs(candidates: FullSyncCandidate[], { hosts, nowMs, defaultWindowEndMs, runningRequests? })`
 *   → `{ byHost: Map<host, HostFullSyncPlan>, behind: Map<sourceId, reason> }` (FULL-3 per host);
 *   `HostFullSyncPlan.share` (`fullSyncShareOf`): the full syncs' share of its time (on a host with
 *   capacity at most its spare), which its full lane keeps by waiting `nextFullTurnMs` after each full
 *   (`laneAfterRun`, RATE-9); `withFullSyncShare(model, share)` — a saturated host's factor counting it.
 * - `otherFetchAdmission(model, requestsPerSecondInUse): { allowed, reason, ruleIds }` — item 5: may
 *   another pass start on the host (sync runs first; MIN_OTHER_FETCH_SHARE: never starved);
 *   `otherFetchAllowed` is its boolean. `hostConditionsOf(ledgerReading)` — the host ledger as conditions.
 * - `hostSourceInputOf(source, stateView, nowIso, settings): HostSourceInput` — a source's demand now.
 * - `saturationText(model)`, `isSaturated(model)`.
 * - `lanesOf(admission, hostOf, nowIso, replan?): Map<sourceId, Lane>` — per admitted run, its host's runs
 *   waiting for the busy host (issues 27/28 host lanes; the sync function runs them one after another);
 *   `nextLaneRun(candidates, laneKind, nowMs?, fullsNotBeforeMs?)` — the lane's next run (fair order).
 */

export * from './admission';
export * from './conditions';
export * from './constants';
export * from './full-sync-budget';
export * from './inputs';
export * from './key';
export * from './lanes';
export * from './model';
export * from './other-fetches';
export * from './stretch';
export * from './turns';
