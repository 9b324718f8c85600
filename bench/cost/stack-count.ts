import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../infra/create-app';
import { PROJECT_ROOT } from '../../infra/ingestor-function';
import { METRIC_NAMESPACE } from '../../shared/observability';

/**
 * What the stack bills for by itself, counted from the synthesised template (issue 28): functions
 * (memory, architecture, timeout), schedules, alarms, dashboards, and the custom metric names with
 * their dimension keys that the dashboard and alarms read. Synthesised the way `cdk synth` does it
 * (infra/create-app.ts, cdk.json's context) with bundling skipped — the template, not the code, is what
 * is counted — into a temporary directory that is removed again (nothing cached in the repository).
 */
export interface StackCount {
  functions: { logicalId: string; description: string; memoryMb: number; arch: string; timeoutS: number }[];
  schedules: { target: string; expression: string }[];
  alarms: number;
  dashboards: number;
  /**
   * Secrets billed a month: those the stack creates (`AWS::SecretsManager::Secret`) and those it reads by
   * name that the operator creates (OPERATOR_SECRETS) — the model had assumed 1 while the stack has 2.
   */
  secrets: number;
  /** Custom metrics in the stack's namespace: name → dimension keys, from SEARCH expressions and alarms. */
  customMetrics: Record<string, string[]>;
  namespace: string;
  synthSeconds: number;
}

/**
 * Secrets the stack reads by name but does not create, so the template has no resource for them: the
 * Upstash REST token (infra/stack.ts `Secret.fromSecretNameV2`, created by the operator per
 * docs/operations.md). Each bills like one the stack creates.
 */
const OPERATOR_SECRETS = 1;

type Resource = { Type: string; Properties?: Record<string, unknown> };

export function countStack(): StackCount {
  const started = performance.now();
  const context = (
    JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }
  ).context;
  const outdir = mkdtempSync(join(tmpdir(), 'ingestor-cost-synth-'));
  try {
    const { app, stack } = createApp({
      outdir,
      context: { ...context, 'aws:cdk:bundling-stacks': [] },
    });
    const template = app.synth().getStackByName(stack.stackName).template as {
      Resources: Record<string, Resource>;
    };
    const resources = Object.entries(template.Resources);
    const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);
    const functions = ofType('AWS::Lambda::Function').map(([logicalId, r]) => ({
      logicalId,
      description: String(r.Properties?.Description ?? ''),
      memoryMb: Number(r.Properties?.MemorySize ?? 128),
      arch: String((r.Properties?.Architectures as string[] | undefined)?.[0] ?? 'x86_64'),
      timeoutS: Number(r.Properties?.Timeout ?? 3),
    }));
    const schedules = ofType('AWS::Scheduler::Schedule').map(([, r]) => ({
      target: JSON.stringify((r.Properties?.Target as { Arn?: unknown } | undefined)?.Arn ?? ''),
      expression: String(r.Properties?.ScheduleExpression ?? ''),
    }));
    const namespace = METRIC_NAMESPACE;
    const customMetrics: Record<string, string[]> = {};
    const dashboardText = ofType('AWS::CloudWatch::Dashboard')
      .map(([, r]) => JSON.stringify(r.Properties?.DashboardBody))
      .join('\n')
      .replace(/\\+"/g, '"');
    // SEARCH('{MandariIngestor,Outcome} MetricName="Requests"', …): a name and its dimension keys.
    const search = new RegExp(`\\{${namespace}((?:,\\w+)*)\\} MetricName="(\\w+)"`, 'g');
    for (const m of dashboardText.matchAll(search)) {
      customMetrics[m[2] as string] = (m[1] ?? '').split(',').filter(Boolean);
    }
    // Plain widget metrics: ["MandariIngestor","PausedSources",…] (dimension pairs follow the name).
    const plain = new RegExp(`\\["${namespace}","(\\w+)"((?:,"[^"{]+","[^"{]+")*)`, 'g');
    for (const m of dashboardText.matchAll(plain)) {
      const pairs = [...(m[2] ?? '').matchAll(/,"([^"]+)","[^"]+"/g)].map((p) => p[1] as string);
      customMetrics[m[1] as string] ??= pairs;
    }
    for (const [, r] of ofType('AWS::CloudWatch::Alarm')) {
      if (r.Properties?.Namespace !== namespace) continue;
      const dims = ((r.Properties?.Dimensions as { Name: string }[] | undefined) ?? []).map((d) => d.Name);
      customMetrics[String(r.Properties?.MetricName)] ??= dims;
    }
    return {
      functions,
      schedules,
      alarms: ofType('AWS::CloudWatch::Alarm').length,
      dashboards: ofType('AWS::CloudWatch::Dashboard').length,
      secrets: ofType('AWS::SecretsManager::Secret').length + OPERATOR_SECRETS,
      customMetrics,
      namespace,
      synthSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * Metric series billed: per custom metric, one series per combination of its dimension values (the
 * values per key are an assumption), plus the metric without dimensions where the code emits a total.
 */
export function metricSeries(count: StackCount, valuesPerKey: Record<string, number>): number {
  let series = 0;
  for (const keys of Object.values(count.customMetrics)) {
    series += keys.reduce((product, key) => product * (valuesPerKey[key] ?? 1), 1);
  }
  return series;
}
