import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger per process (Powertools: JSON lines with service, cold start, request id).
 * Log source, host and outcome — never headers, tokens or visitor addresses.
 * Local runs default to warnings only; `POWERTOOLS_LOG_LEVEL` overrides.
 */
export const logger = new Logger({
  serviceName: 'mandari-ingestor',
  logLevel:
    (process.env.POWERTOOLS_LOG_LEVEL as 'INFO' | undefined) ??
    (process.env.AWS_LAMBDA_FUNCTION_NAME ? 'INFO' : 'WARN'),
});
