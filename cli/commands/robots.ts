import { readFile } from 'node:fs/promises';
import { robotsCheck } from '../../shared/robots';
import { type CommandResult, UsageError } from '../output';
import type { RobotsCheckInput } from '.';

/**
 * `robots check --robots-file F --agent UA [--status CODE] <url>`: the fetcher's own verdict code on a
 * robots.txt the operator has at hand (e.g. one a municipality sent), no network.
 */
export async function robotsCommand(
  url: string,
  values: RobotsCheckInput,
  now: Date,
): Promise<CommandResult> {
  const status = values.status ?? 200;
  // A 4xx/5xx robots.txt has no body that matters; a 200 needs the file.
  let robotsText: Buffer | null = null;
  if (values.robotsFile !== undefined) robotsText = await readFile(values.robotsFile);
  else if (status >= 200 && status < 300) throw new UsageError('--robots-file is required for a 2xx status');
  const result = robotsCheck({ robotsText, status, agent: values.agent, url, now });
  const json = {
    verdict: result.verdict,
    group: result.group,
    rule: result.rule,
    reason: result.reason,
    productToken: result.productToken,
    status: result.status,
    fetchRule: result.fetchRule,
    ...(result.crawlDelaySeconds === undefined ? {} : { crawlDelaySeconds: result.crawlDelaySeconds }),
    ...(result.retryAt === undefined ? {} : { retryAt: new Date(result.retryAt).toISOString() }),
  };
  return {
    text: [
      `${result.verdict.toUpperCase()}  ${url}`,
      `  agent token: ${result.productToken} (checked with mandari-ingestor, ROB-3)`,
      `  group: ${result.group ?? '(none)'}   rule: ${result.rule ?? '(none)'}`,
      `  ${result.reason}`,
      `  robots.txt status ${status}: ${result.fetchRule}`,
    ],
    json,
    exitCode: 0,
  };
}
