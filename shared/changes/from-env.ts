import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { IngestorEnv } from '../config';
import { type AwsClients, awsClientBase, createAwsClients, destroyAwsClients } from '../store';
import { ChangeFeed } from './feed';
import { eventBridgeSink, fileSink } from './sinks';
import type { ChangeSink } from './types';

/**
 * The AWS clients with the mirror's change feed wired in, when the environment configures one. The
 * composition roots (functions, the CLI's runtimes, the sync/documents/broadcasts runtimes) build these;
 * the store builds the SDK clients only, so it never depends on the feed (the feed's outbox lives in
 * the store's State table, so the feed sits above the store).
 */
export interface FeedClients extends AwsClients {
  /** Set when the change feed is on (`INGESTOR_CHANGE_BUS`): the client it publishes with. */
  events?: EventBridgeClient;
  /**
   * The mirror's change feed (issue 16), when configured: the mirror store records every commit here.
   * It rides with the clients because every writer of the mirror already receives them.
   */
  changes?: ChangeFeed;
}

/** `clients` plus the change feed the environment asks for: EventBridge, a local file, or none. */
export function withChangeFeed(clients: AwsClients, e: IngestorEnv): FeedClients {
  const wired: FeedClients = clients;
  let sink: ChangeSink | undefined;
  if (e.INGESTOR_CHANGE_BUS) {
    wired.events = new EventBridgeClient({
      ...awsClientBase(e),
      ...(e.INGESTOR_EVENTBRIDGE_ENDPOINT ? { endpoint: e.INGESTOR_EVENTBRIDGE_ENDPOINT } : {}),
    });
    sink = eventBridgeSink(wired.events, e.INGESTOR_CHANGE_BUS);
  } else if (e.INGESTOR_CHANGE_FILE) {
    sink = fileSink(e.INGESTOR_CHANGE_FILE);
  }
  if (sink) wired.changes = new ChangeFeed({ sink, outbox: { doc: clients.doc, table: e.STATE_TABLE } });
  return wired;
}

/** The process's AWS clients and its change feed (STYLE: clients at module load, not per invocation). */
export function createFeedClients(e: IngestorEnv): FeedClients {
  return withChangeFeed(createAwsClients(e), e);
}

export function destroyFeedClients(c: FeedClients): void {
  destroyAwsClients(c);
  c.events?.destroy();
}
