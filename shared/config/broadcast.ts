import * as z from 'zod';
import { hostKey } from '../util';
import type { FieldProblem } from './errors';
import { editTrailFields, fieldProblemsOf, rawSourceIdOf, sourceIdField } from './item-problems';
import { flag, httpUrl } from './source';

/**
 * OTH-5: a broadcast source — where the live stream of one body's council meetings is published — is
 * an item of its own kind in the Sources table, edited by hand like the others and read through this
 * one schema (`itemKind: "broadcast"`). It names the stream URL (an HLS playlist, or a provider's status endpoint answering JSON,
 * read through RFC 6901 JSON pointers) and the mirrored body whose meetings it follows. The planner
 * never syncs it (`loadAllSources` sets items of other kinds aside); shared/broadcasts polls it.
 */

/** The `itemKind` of a broadcast item (`otherItemKindOf`): council items have none. */
export const BROADCAST_ITEM_KIND = 'broadcast';
/** How the stream URL tells whether the broadcast is live. */
export const BROADCAST_FORMATS = ['hls', 'json'] as const;
export type BroadcastFormat = (typeof BROADCAST_FORMATS)[number];

/** RFC 6901 §3: empty (the whole document) or `/`-separated tokens where `~` only starts `~0` / `~1`. */
export function isJsonPointer(text: string): boolean {
  return text === '' || /^(\/([^~/]|~[01])*)+$/.test(text);
}

const jsonPointer = z
  .string({ error: 'must be a JSON pointer' })
  .refine(isJsonPointer, 'must be an RFC 6901 JSON pointer such as "/live" or "/stream/hls"');

const broadcastItemSchema = z
  .object({
    sourceId: sourceIdField,
    itemKind: z.literal(BROADCAST_ITEM_KIND),
    name: z.string().trim().max(200).optional(),
    /** The body's slug (ONB-4) as `bodies` shows it; with the two fields below, fixed when added. */
    body: z.string({ error: 'is required' }).trim().min(1, 'is required'),
    /** The council source whose mirror holds the body and its meetings. */
    councilSourceId: z.string({ error: 'is required' }).trim().min(1, 'is required'),
    /** The body's OParl id (its State records are keyed by a hash of it). */
    bodyId: z.string({ error: 'is required' }).trim().min(1, 'is required'),
    /** An HLS playlist, or the provider's JSON status endpoint (then `livePointer` is required). */
    streamUrl: httpUrl,
    /** JSON status: where the live flag is (true, "true", "live", 1 count as live). */
    livePointer: jsonPointer.optional(),
    /** JSON status: where the stream URL is; absent = the stream URL is not reported. */
    streamPointer: jsonPointer.optional(),
    /** OTH-3: every such source can be switched off on its own; tools create it inactive (ONB-3). */
    active: flag.default(false),
    ...editTrailFields,
  })
  .strict();

export type BroadcastItem = z.input<typeof broadcastItemSchema>;

export interface BroadcastConfig {
  broadcastId: string;
  name?: string;
  body: string;
  councilSourceId: string;
  bodyId: string;
  streamUrl: string;
  /** Lower-cased hostname of the stream URL: the unit of pace (OTH-2). */
  host: string;
  format: BroadcastFormat;
  livePointer?: string;
  streamPointer?: string;
  active: boolean;
}

export type ParsedBroadcast =
  | { ok: true; broadcast: BroadcastConfig }
  | { ok: false; broadcastId: string; problems: FieldProblem[] };

/** Parse one raw broadcast item. Never throws: a broken item is skipped and its problems are shown. */
export function parseBroadcastItem(raw: unknown): ParsedBroadcast {
  const result = broadcastItemSchema.safeParse(raw);
  if (!result.success) {
    return { ok: false, broadcastId: rawSourceIdOf(raw), problems: fieldProblemsOf(result.error) };
  }
  const item = result.data;
  if (item.streamPointer !== undefined && item.livePointer === undefined) {
    return {
      ok: false,
      broadcastId: item.sourceId,
      problems: [{ field: 'streamPointer', message: 'needs livePointer (a JSON status endpoint)' }],
    };
  }
  const broadcast: BroadcastConfig = {
    broadcastId: item.sourceId,
    body: item.body,
    councilSourceId: item.councilSourceId,
    bodyId: item.bodyId,
    streamUrl: item.streamUrl,
    host: hostKey(item.streamUrl),
    format: item.livePointer === undefined ? 'hls' : 'json',
    active: item.active,
  };
  if (item.name !== undefined) broadcast.name = item.name;
  if (item.livePointer !== undefined) broadcast.livePointer = item.livePointer;
  if (item.streamPointer !== undefined) broadcast.streamPointer = item.streamPointer;
  return { ok: true, broadcast };
}
