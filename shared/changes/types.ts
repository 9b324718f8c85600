/**
 * One committed change of the mirror, as published (EventBridge `detail`, or one line of the local file).
 * `kind`: `new`, `modified` (a new version; also an object the origin had deleted and restored),
 * `deleted` (OPT-2 tombstone of the origin), `takendown` (an operator's takedown, OPT-5), `purged` (OPT-3:
 * removed for good).
 */
export type ChangeEventKind = 'new' | 'modified' | 'deleted' | 'takendown' | 'purged';

export interface ChangeEvent {
  kind: ChangeEventKind;
  /** Source id (our config). */
  source: string;
  /** The origin id of the object's body, when the object belongs to one. */
  body?: string;
  /** Lower-case OParl type (`paper`, `agendaitem` …). */
  type: string;
  /** The object's path in the OParl API over the mirror (`/oparl/v1/<source>/<type>/<hash>`). */
  apiId: string;
  /** The object's id at its origin. */
  originId: string;
  /** S3 key of the mirror record (gone after `purged`). */
  key: string;
  /** Commit time (ISO 8601, UTC): the `modified` the API serves for this version. */
  at: string;
}

/** Where events go: EventBridge, or a local file. Returns the events it could not deliver. */
export interface ChangeSink {
  readonly name: string;
  deliver(events: readonly ChangeEvent[]): Promise<ChangeEvent[]>;
}

/** What one flush did. */
export interface FlushReport {
  published: number;
  /** Undeliverable now, kept in the outbox. */
  outboxed: number;
  /** Delivered from the outbox (earlier failures). */
  redelivered: number;
}
