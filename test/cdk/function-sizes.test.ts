import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_MEMORY_MB, SYNC_MALLOC } from '../../infra/function-sizes';
import { IngestorFunction } from '../../infra/ingestor-function';
import { IngestorStack } from '../../infra/stack';
import { cdkJsonContext, NO_BUNDLING, removeTempOutdirs, TEST_ENV, tempOutdir } from '../support/cdk';

/**
 * Issue 28 (lambda-fit): every function of the full stack is deployed at the size infra/function-sizes.ts
 * gives it — the size its measured peak RSS was sized into (`npm run bench -- rss`) and the cost model
 * bills (bench/cost.ts reads the same constant). Wiring only (no esbuild).
 */
const KEY_OF_CONSTRUCT: Record<string, keyof typeof FUNCTION_MEMORY_MB> = {
  Planner: 'planner',
  Sync: 'sync',
  Files: 'files',
  DeletionCheck: 'deletionCheck',
  Photos: 'photos',
  Geo: 'geo',
  Broadcasts: 'broadcasts',
  Preview: 'preview',
  MirrorApi: 'mirrorApi',
};

let stack: IngestorStack;
let template: Template;

beforeAll(() => {
  const app = new App({
    outdir: tempOutdir('function-sizes'),
    context: { ...cdkJsonContext(), ...NO_BUNDLING },
  });
  // Every function on: documents, preview, geo, broadcasts and the mirror API.
  stack = new IngestorStack(app, 'FunctionSizesTest', {
    env: TEST_ENV,
    documentFunctions: true,
    previewFunction: true,
    geoFunction: true,
    broadcastFunction: true,
    mirrorApi: true,
  });
  template = Template.fromStack(stack);
}, 120_000);
afterAll(removeTempOutdirs);

describe('function sizes (issue 28: memory from measured RSS)', () => {
  it('each function’s MemorySize in the synthesised stack is FUNCTION_MEMORY_MB’s, and every size is deployed', () => {
    const resources = template.findResources('AWS::Lambda::Function');
    const functions = stack.node
      .findAll()
      .filter((c): c is IngestorFunction => c instanceof IngestorFunction);
    const seen = new Set<string>();
    for (const f of functions) {
      const key = KEY_OF_CONSTRUCT[f.node.id];
      expect(key, `function ${f.node.id} has a size in FUNCTION_MEMORY_MB`).toBeDefined();
      const id = stack.getLogicalId(f.fn.node.defaultChild as CfnElement);
      expect(resources[id]?.Properties?.MemorySize, f.node.id).toBe(
        FUNCTION_MEMORY_MB[key as keyof typeof FUNCTION_MEMORY_MB],
      );
      seen.add(key as string);
    }
    expect([...seen].sort()).toEqual(Object.keys(FUNCTION_MEMORY_MB).sort());
  });

  it('the sync runs with the malloc setting its size is measured with (SYNC_MALLOC); no other function does', () => {
    const resources = template.findResources('AWS::Lambda::Function');
    const functions = stack.node
      .findAll()
      .filter((c): c is IngestorFunction => c instanceof IngestorFunction);
    const names = Object.keys(SYNC_MALLOC.env);
    expect(names).toEqual(['MALLOC_MMAP_THRESHOLD_']);
    for (const f of functions) {
      const id = stack.getLogicalId(f.fn.node.defaultChild as CfnElement);
      const variables = resources[id]?.Properties?.Environment?.Variables as Record<string, unknown>;
      const present = Object.fromEntries(names.filter((n) => n in variables).map((n) => [n, variables[n]]));
      expect(present, f.node.id).toEqual(f.node.id === 'Sync' ? SYNC_MALLOC.env : {});
    }
  });
});
