import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { salvageSourcePace } from '../config';
import type { SourcesLoad } from '../store';
import { getSourceState } from '../store';
import { mapLimit } from '../util';
import { type HeldPaces, type HostIntervals, hostIntervalsOf, type SourcePace } from './host-intervals';

/** State reads in flight at once; broken items are few. */
const STATE_READS = 8;

/**
 * RATE-2 over the Sources table as loaded: valid items count with their config, broken ones with the
 * pace their State item remembers from their last valid config (`lastValidPace`, written by the
 * planner) and with what the item itself still states. One State read per broken item only.
 */
export async function loadHostIntervals(
  doc: DynamoDBDocumentClient,
  stateTable: string,
  load: SourcesLoad,
): Promise<HostIntervals> {
  const broken = load.parsed.flatMap((p) => (p.ok ? [] : [p.sourceId]));
  const held: HeldPaces = new Map();
  await mapLimit(broken, STATE_READS, async (sourceId) => {
    const state = await getSourceState(doc, stateTable, sourceId);
    const paces = [state?.lastValidPace, salvageSourcePace(load.raw.get(sourceId))].filter(
      (p): p is SourcePace => p !== undefined,
    );
    held.set(sourceId, paces);
  });
  return hostIntervalsOf(load.parsed, held);
}
