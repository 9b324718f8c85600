import { IngestorError } from '../errors';

export type ScheduleErrorCode =
  /** A time given to the planner (now, a state field, a simulation bound) is not a valid ISO instant. */
  | 'SCHEDULE_INVALID_TIME'
  /** Settings or simulation options out of range (checked once at the boundary). */
  | 'SCHEDULE_INVALID_OPTIONS'
  /** The simulation stopped advancing — a bug in the decision code, never a policy outcome. */
  | 'SCHEDULE_SIMULATION_STUCK';

/**
 * Raised by the schedule core only for bad input; every policy outcome (paused, window closed …) is a
 * decision with a reason, never an error.
 */
export class ScheduleError extends IngestorError {
  declare readonly code: ScheduleErrorCode;

  constructor(code: ScheduleErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { retryable: false, ...options });
  }
}
