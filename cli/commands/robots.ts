import { readFile } from 'node:fs/promises';
import { robotsCheck } from '../../shared/robots';
import { type CommandResult, UsageError } from '../output';

/**
 * `robots check --robots-file F --agent UA [--status CODE] <url>`: the fetcher's own verdict code on a
 * robots.txt the operator has at hand (e.g. one a municipality sent), no network.
 */
export async function robotsCommand(
  positionals: string[],
  values: { 'robots-file'?: string; agent?: string; status?: string },
  now: Date,
): Promise<CommandResult> {
  const [sub, url] = positionals;
  if (sub !== 'check' || url === undefined || values.agent === undefined) {
    throw new UsageError(
      'usage: ingestor robots check --robots-file F --agent "<User-Agent>" [--status CODE] <url>',
    );
  }
  const status = values.status === undefined ? 200 : Number(values.status);
  // A 4xx/5xx robots.txt has no body that matters; a 200 needs the file.
  let robotsText: Buffer | null = null;
  if (values['robots-file'] !== undefined) robotsText = await readFile(values['robots-file']);
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
