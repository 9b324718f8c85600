import { describe, expect, it } from 'vitest';
import { attribute } from '../../bench/sync-cpu';

/**
 * Issue 28: bench sync-cpu splits a CPU profile between the engine and the council answering it in the
 * same process (a sample whose stack holds the council's code or node's HTTP server is the council's).
 */
describe('sync-cpu profile attribution (issue 28)', () => {
  const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
    id,
    callFrame: { functionName, url, lineNumber: 0 },
    children,
  });
  const profile = {
    nodes: [
      frame(1, '(root)', '', [2, 3, 5, 7, 8, 9]),
      frame(2, 'syncSource', 'file:///w/shared/oparl/engine.ts', [4]),
      frame(3, 'parserOnIncoming', 'node:_http_server', [6]),
      frame(4, 'writev', ''),
      frame(5, '(garbage collector)', ''),
      frame(6, 'send', 'file:///w/demo/server.ts'),
      frame(7, '(idle)', ''),
      frame(8, 'post', 'node:inspector'),
      frame(9, 'answer', 'file:///w/test/support/fake-ris-html/server.ts'),
    ],
    // µs: engine 600, council 300 (HTTP server 200 + fake RIS 100), GC 100, idle 5,000, profiler 400.
    samples: [4, 4, 6, 6, 9, 5, 7, 8],
    timeDeltas: [300, 300, 100, 100, 100, 100, 5_000, 400],
  };

  it('the council’s share is its stacks; idle and the profiler’s own calls are no one’s; GC is split', () => {
    const a = attribute(profile);
    expect(a.us).toEqual({ ingestor: 600, council: 300, shared: 100, none: 5_400 });
    expect(a.ingestorShare).toBeCloseTo(600 / 900);
    expect(a.cpuUs).toBe(1_000);
    // Self time per frame of the engine's and the unattributed samples only.
    expect(Object.fromEntries(a.self)).toEqual({ writev: 600, '(garbage collector)': 100 });
  });
});
