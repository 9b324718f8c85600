/**
 * Plan boundaries from geo services (SPEC OTH-4): geo sources, the daily refresh, plan numbers and
 * plan references in paper titles. Fetches go through shared/other-fetch (OTH-1…3).
 */

export * from './compose';
export * from './constants';
export * from './errors';
export * from './geometry';
export * from './normalise';
export * from './paper-refs';
export * from './plan-number';
export * from './protocol';
export * from './refresh';
export * from './run';
export * from './store';
