/**
 * Live broadcasts of council meetings (SPEC OTH-5): broadcast sources per body, polled only around the
 * body's scheduled meetings known from the mirror, at most once a minute, through the other-fetch mode
 * (OTH-1…3). Pure decisions in `decide.ts` and `detect.ts`; I/O in `meetings.ts`, `store.ts`, `run.ts`.
 */

export * from './add';
export * from './compose';
export * from './constants';
export * from './decide';
export * from './detect';
export * from './meetings';
export * from './run';
export * from './status';
export * from './store';
export * from './types';
