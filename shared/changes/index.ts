/**
 * The mirror's change feed (issue 16): every committed change as an event — EventBridge in AWS, a JSON
 * lines file locally — batched, with an outbox for failed publishes. Other folders import this only.
 */
export {
  CHANGE_BATCH_MAX,
  CHANGE_DETAIL_TYPE,
  CHANGE_EVENT_SOURCE,
  LOCAL_CHANGES_FILE,
  OUTBOX_DRAIN_INTERVAL_MS,
  OUTBOX_PARTITION,
} from './constants';
export { ChangeFeed, type ChangeFeedOptions, ChangeFeedUndeliveredError } from './feed';
export { createFeedClients, destroyFeedClients, type FeedClients, withChangeFeed } from './from-env';
export { batches, eventBridgeSink, fileSink } from './sinks';
export type { ChangeEvent, ChangeEventKind, ChangeSink, FlushReport } from './types';
