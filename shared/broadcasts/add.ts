import { BROADCAST_ITEM_KIND, type BroadcastItem } from '../config';
import { resolveBody } from '../onboarding';
import type { AwsClients, StoreTables } from '../store';
import { putBroadcastItem } from './store';

/**
 * `ingestor broadcasts add`: a broadcast source for one mirrored body, named by its slug (ONB-4). The
 * body is resolved once, here — the item keeps its council source and id, so the minute's pass needs
 * no lookup. Inactive unless `activate` (ONB-3 as for council sources; OTH-3: each such source can be
 * switched off on its own).
 */
export interface AddBroadcastInput {
  body: string;
  /** Settles a slug used by two council sources. */
  councilSourceId?: string;
  streamUrl: string;
  livePointer?: string;
  streamPointer?: string;
  activate?: boolean;
  /** Default `broadcast-<slug>`. */
  broadcastId?: string;
  by: string;
  now: Date;
}

export async function addBroadcast(
  clients: Pick<AwsClients, 'doc'>,
  tables: Pick<StoreTables, 'sources' | 'state'>,
  input: AddBroadcastInput,
): Promise<{ id: string; active: boolean; body: string; councilSourceId: string; format: string }> {
  const { sourceId, body } = await resolveBody(clients.doc, tables, input.body, input.councilSourceId);
  const at = input.now.toISOString();
  const item: BroadcastItem = {
    sourceId: input.broadcastId ?? `broadcast-${body.slug}`.slice(0, 63).replace(/-+$/, ''),
    itemKind: BROADCAST_ITEM_KIND,
    name: `Übertragung ${body.name}`.slice(0, 200),
    body: body.slug,
    councilSourceId: sourceId,
    bodyId: body.id,
    streamUrl: input.streamUrl,
    ...(input.livePointer === undefined ? {} : { livePointer: input.livePointer }),
    ...(input.streamPointer === undefined ? {} : { streamPointer: input.streamPointer }),
    active: input.activate === true,
    createdAt: at,
    updatedAt: at,
    updatedBy: input.by,
  };
  const broadcast = await putBroadcastItem(clients, tables.sources, item);
  return {
    id: broadcast.broadcastId,
    active: broadcast.active,
    body: body.slug,
    councilSourceId: sourceId,
    format: broadcast.format,
  };
}
