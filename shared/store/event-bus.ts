import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';

/** One event as EventBridge takes it. */
export interface BusEvent {
  source: string;
  detailType: string;
  time: Date;
  /** The event's JSON. */
  detail: string;
}

/**
 * An EventBridge bus (the default or a named one): the change feed's way out in AWS (shared/changes
 * decides what to send, in which batches, and what an undelivered event means).
 */
export class EventBus {
  constructor(
    private readonly client: EventBridgeClient,
    readonly busName: string,
  ) {}

  /**
   * One PutEvents call (at most 10 events). PutEvents is not all-or-nothing — it answers per entry — so
   * this answers, per event in order, whether it was refused; a call that fails whole throws.
   */
  async put(events: readonly BusEvent[]): Promise<boolean[]> {
    const out = await this.client.send(
      new PutEventsCommand({
        Entries: events.map((event) => ({
          EventBusName: this.busName,
          Source: event.source,
          DetailType: event.detailType,
          Time: event.time,
          Detail: event.detail,
        })),
      }),
    );
    if ((out.FailedEntryCount ?? 0) === 0) return events.map(() => false);
    return events.map((_, i) => out.Entries?.[i]?.ErrorCode !== undefined);
  }
}
