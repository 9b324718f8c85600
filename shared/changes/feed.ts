import { IngestorError } from '../errors';
import { DIMENSIONS, logger, METRICS, type MetricsBuffer, metrics as processMetrics } from '../observability';
import { FeedOutbox, type TableContext } from '../store';
import { CHANGE_BATCH_MAX, OUTBOX_DRAIN_INTERVAL_MS, OUTBOX_DRAIN_MAX } from './constants';
import type { ChangeEvent, ChangeSink, FlushReport } from './types';

/**
 * Neither the sink nor the outbox took these events: the sync must not end as if they were published.
 * They stay buffered in this process; the next flush tries again.
 */
export class ChangeFeedUndeliveredError extends IngestorError {
  constructor(
    readonly count: number,
    cause: unknown,
  ) {
    super('CHANGE_FEED_UNDELIVERED', `${count} change events could be neither published nor outboxed`, {
      retryable: true,
      cause,
    });
  }
}

export interface ChangeFeedOptions {
  sink: ChangeSink;
  /** The State table holds the outbox (shared/store `FeedOutbox`, partition `OUTBOX_PARTITION`). */
  outbox: TableContext;
  now?: () => number;
  metrics?: MetricsBuffer;
}

/**
 * The change feed of one process. The mirror store records an event right after each commit (the index
 * item's write); events go out in batches of `CHANGE_BATCH_MAX` — when a batch is full, and on `flush()`
 * at the end of every sync message and operator command.
 *
 * A failed publish loses nothing: what the sink did not take is written to the outbox (State table),
 * counted (`ChangeFeedEvents`, Outcome=outboxed) and logged; a later flush — of this process at once,
 * of any process within `OUTBOX_DRAIN_INTERVAL_MS`, and the planner's tick (`drain`) — publishes it and
 * deletes it from the outbox. Only when the outbox cannot be written either does `flush` throw (the sync
 * fails visibly and is retried) with the events kept in memory for the next flush.
 *
 * A crash between a commit and the flush loses the buffered events, except those `stage`d: an event
 * that must never be lost (`takendown`, `purged`: the takedown promise to consumers that only follow
 * the feed) is written to the outbox *before* its commit, and only deleted from there once the sink
 * took it. A commit that then fails for certain (its condition) takes it back (`unstage`); one that
 * fails otherwise leaves it to be delivered (see docs/mirror-api.md: at-least-once). Consumers may see
 * an event twice (at-least-once, as EventBridge itself): `apiId` + `at` identify one change.
 */
export class ChangeFeed {
  private buffer: ChangeEvent[] = [];
  private lastDrainAt = Number.NEGATIVE_INFINITY;
  private outboxPending = false;
  /** Outbox keys of the staged events this process holds in its buffer (delete them once delivered). */
  private readonly staged = new Set<string>();
  private readonly now: () => number;
  private readonly metrics: MetricsBuffer;
  private readonly outbox: FeedOutbox<ChangeEvent>;

  constructor(private readonly options: ChangeFeedOptions) {
    this.outbox = new FeedOutbox(options.outbox);
    this.now = options.now ?? Date.now;
    this.metrics = options.metrics ?? processMetrics;
  }

  get sinkName(): string {
    return this.options.sink.name;
  }

  /**
   * Before the commit of an event that must survive a crash of this process: the event is durable in
   * the outbox first (deterministic key: staging it again keeps one item). After the commit, `record` it.
   */
  async stage(event: ChangeEvent): Promise<void> {
    await this.putOutbox(event);
    this.staged.add(this.outbox.keyOf(event));
  }

  /** The staged event's commit did certainly not happen (its condition failed): no change to publish. */
  async unstage(event: ChangeEvent): Promise<void> {
    await this.deleteOutbox(event);
    this.staged.delete(this.outbox.keyOf(event));
  }

  /** Called after a commit; sends a full batch at once. */
  async record(event: ChangeEvent): Promise<void> {
    this.buffer.push(event);
    if (this.buffer.length >= CHANGE_BATCH_MAX) await this.flush();
  }

  /** Publishes what is buffered, outboxes what fails, and redelivers the outbox when due. */
  async flush(): Promise<FlushReport> {
    const events = this.buffer.splice(0);
    const failed = await this.options.sink.deliver(events);
    const report: FlushReport = { published: events.length - failed.length, outboxed: 0, redelivered: 0 };
    const undelivered = new Set(failed);
    // Staged events wait in the outbox until the sink took them; then they leave it.
    for (const event of events) {
      const sk = this.outbox.keyOf(event);
      if (undelivered.has(event) || !this.staged.has(sk)) continue;
      this.staged.delete(sk);
      await this.forget(event);
    }
    if (failed.length > 0) {
      try {
        for (const event of failed)
          if (!this.staged.has(this.outbox.keyOf(event))) await this.putOutbox(event);
      } catch (error) {
        this.buffer.unshift(...failed);
        this.count('undelivered', failed.length);
        throw new ChangeFeedUndeliveredError(failed.length, error);
      }
      // In the outbox now (put above, or staged before the commit): the outbox's drain delivers them.
      for (const event of failed) this.staged.delete(this.outbox.keyOf(event));
      this.outboxPending = true;
      report.outboxed = failed.length;
      this.count('outboxed', failed.length);
      logger.warn('change feed publish failed; events kept in the outbox', {
        sink: this.options.sink.name,
        events: failed.length,
      });
    }
    this.count('published', report.published);
    // Right after a failure the sink is likely still down: the outbox waits for the next flush.
    if (failed.length === 0) report.redelivered = await this.drain();
    return report;
  }

  /**
   * Redelivers the outbox when due: at once when this process left events there, else every
   * `OUTBOX_DRAIN_INTERVAL_MS` (another process, one that crashed too, may have). When not due it costs
   * nothing; when due, one Query (`Limit` `OUTBOX_DRAIN_MAX`) of a partition that is normally empty.
   * The planner's tick calls it, so the outbox drains even while no sync runs.
   */
  async drain(): Promise<number> {
    if (!this.outboxPending && this.now() - this.lastDrainAt < OUTBOX_DRAIN_INTERVAL_MS) return 0;
    return this.redeliver();
  }

  /** Events waiting in the outbox (oldest first), at most `limit`. */
  async outboxed(limit = OUTBOX_DRAIN_MAX): Promise<ChangeEvent[]> {
    return this.outbox.oldest(limit);
  }

  private async redeliver(): Promise<number> {
    this.lastDrainAt = this.now();
    const waiting = await this.outboxed();
    if (waiting.length === 0) {
      this.outboxPending = false;
      return 0;
    }
    const failed = new Set(await this.options.sink.deliver(waiting));
    this.outboxPending = false;
    let delivered = 0;
    for (const event of waiting) {
      if (failed.has(event)) continue;
      await this.forget(event);
      delivered += 1;
    }
    this.outboxPending ||= failed.size > 0 || waiting.length >= OUTBOX_DRAIN_MAX;
    this.count('redelivered', delivered);
    return delivered;
  }

  private async putOutbox(event: ChangeEvent): Promise<void> {
    await this.outbox.put(event);
  }

  /**
   * A delivered event leaves the outbox. Should that fail, the event is out already: the failure costs
   * a duplicate (the next drain delivers it again), not the command or sync that published it.
   */
  private async forget(event: ChangeEvent): Promise<void> {
    try {
      await this.deleteOutbox(event);
    } catch (error) {
      this.outboxPending = true;
      logger.warn('change feed: a delivered event stays in the outbox; it will be delivered again', {
        sink: this.options.sink.name,
        error: error instanceof Error ? error.name : String(error),
      });
    }
  }

  private async deleteOutbox(event: ChangeEvent): Promise<void> {
    await this.outbox.remove(event);
  }

  private count(outcome: string, n: number): void {
    if (n > 0) this.metrics.count(METRICS.changeFeedEvents, { [DIMENSIONS.outcome]: outcome }, n);
  }
}
