import * as z from 'zod';
import { IngestorError } from '../errors';

/**
 * The sync queue's message: one sync run of one source. The planner sends it after taking the source's
 * lease; the sync function sends a continuation (same runId, `continuation` + 1) when its time budget
 * runs out. A redelivered or duplicated message is harmless: the lease admits only its own runId, and
 * each message of the run only one invocation at a time (`claimSyncRun`, issue 13).
 */
/** One waiting run of a host lane (`shared/hosts` `LaneEntry`): the planner's decision for it. */
const laneEntrySchema = z.object({
  sourceId: z.string().min(1),
  kind: z.enum(['incremental', 'full', 'sliced']),
  trigger: z.enum(['schedule', 'manual']).default('schedule'),
  reason: z.string(),
  ruleIds: z.array(z.string()),
  deadline: z.string().optional(),
  windowId: z.string().optional(),
  dueAt: z.string().optional(),
});

/**
 * Host lanes (issues 27/28): the host's runs that wait only because it is busy; when this run ends
 * `done`, the same invocation starts them one after another (`runLane`). Optional: a message without a
 * lane (older planners, the CLI) is a single run as before.
 */
const laneSchema = z.object({
  host: z.string().min(1),
  plannedAt: z.string(),
  entries: z.array(laneEntrySchema),
  /** Re-planning (issue 27): the host's other sources and when each is expected due. */
  pool: z.array(z.object({ sourceId: z.string().min(1), dueAt: z.string().optional() })).optional(),
  /** The slot's kind (FULL-3): only a full lane starts full syncs. */
  kind: z.enum(['incremental', 'full']).optional(),
  /** RATE-9's stretch of the host at the plan (with the window's full-sync share in it, if any). */
  stretch: z
    .object({
      factor: z.number(),
      demand: z.number(),
      capacity: z.number(),
      fullSyncShare: z.number().min(0).max(1).optional(),
    })
    .optional(),
  /** RATE-9 on a saturated host: the full syncs' share of its time, and when the next may start. */
  fullShare: z.number().min(0).max(1).optional(),
  fullsNotBefore: z.string().optional(),
});

export const syncMessageSchema = z.object({
  sourceId: z.string().min(1),
  runId: z.string().min(1),
  kind: z.enum(['incremental', 'full', 'sliced']),
  trigger: z.enum(['schedule', 'manual']).default('schedule'),
  /** FULL-4/FULL-6: no further page after this instant (own window end). */
  deadline: z.string().optional(),
  /** FULL-2: the window a full sync was started in. */
  windowId: z.string().optional(),
  continuation: z.number().int().min(0).default(0),
  /** When the run started (first message), for the report and SCH-9 windows. */
  startedAt: z.string(),
  /** Host lanes: carried on by continuations, so the lane goes on where the run ends. */
  lane: laneSchema.optional(),
  /**
   * RATE-2: the source's host key when the run started, so the sync worker (shared/sync/worker.ts) keeps
   * one run per host in flight without a read first. Optional: older messages are keyed by their source.
   */
  host: z.string().min(1).optional(),
});

export type SyncMessage = z.output<typeof syncMessageSchema>;
export type SyncLane = NonNullable<SyncMessage['lane']>;

export class SyncMessageError extends IngestorError {
  constructor(message: string) {
    super('SYNC_MESSAGE_INVALID', message);
  }
}

export function parseSyncMessage(body: string): SyncMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    throw new SyncMessageError('sync message is not JSON');
  }
  const result = syncMessageSchema.safeParse(raw);
  if (!result.success) {
    throw new SyncMessageError(
      `sync message invalid: ${result.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
    );
  }
  return result.data;
}
