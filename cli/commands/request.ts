import { decideStoredManualSync } from '../../shared/planner';
import { initialScheduleState, scheduleSettingsFromEnv } from '../../shared/schedule';
import { loadSource, requestManualSync } from '../../shared/store';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

/**
 * `request <sourceId> [--full]`: ask the planner for a sync (or full sync) of one source. The request
 * is stored in the State table (the same flag an admin form would set) and the answer says what the
 * planner will actually do with it under SCH-7 and FULL-8 — e.g. nothing while the source is spared.
 */
export async function requestCommand(
  rt: LocalRuntime,
  sourceId: string,
  full: boolean,
  now: Date,
): Promise<CommandResult> {
  const parsed = await loadSource(rt.clients.doc, rt.env.SOURCES_TABLE, sourceId);
  if (parsed === undefined)
    return { text: [`no source ${sourceId}`], json: { error: 'NOT_FOUND', sourceId }, exitCode: 1 };
  if (!parsed.ok) {
    const reason = `invalid config: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`;
    return { text: [`not requested: ${reason}`], json: { sourceId, requested: false, reason }, exitCode: 1 };
  }
  const request = { kind: full ? ('full' as const) : ('sync' as const), requestedAt: now.toISOString() };
  await requestManualSync({ doc: rt.clients.doc, table: rt.env.STATE_TABLE }, sourceId, request, {
    ...initialScheduleState(),
  });
  // What the planner's tick will decide of the stored flag (SCH-7, FULL-8).
  const { decision } = await decideStoredManualSync(
    { doc: rt.clients.doc, tables: { state: rt.env.STATE_TABLE }, settings: scheduleSettingsFromEnv(rt.env) },
    { source: parsed.source, request, now },
  );
  const willRun = decision.action === 'sync';
  return {
    text: [
      `requested ${request.kind} of ${sourceId}`,
      willRun
        ? `the planner will start a ${decision.kind} sync at its next tick (if a sync slot is free): ${decision.reason}`
        : `the planner will not start it now: ${decision.reason}`,
    ],
    json: {
      sourceId,
      requested: true,
      request,
      willRun,
      action: decision.action,
      kind: decision.kind ?? null,
      reason: decision.reason,
      ruleIds: decision.ruleIds,
    },
  };
}
