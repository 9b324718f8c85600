import { IngestorError } from '../errors';

/** One field of a config item that could not be accepted, named as on-call sees it in DynamoDB. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class ConfigError extends IngestorError {
  readonly problems: FieldProblem[];

  constructor(message: string, problems: FieldProblem[] = []) {
    super('CONFIG_INVALID', message);
    this.problems = problems;
  }
}
