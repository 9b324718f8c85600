/**
 * Onboarding (SPEC ONB-1…ONB-4, OPT-4): the probe, adding and importing sources, bodies and their
 * listing, and the host-wide per-source knobs.
 */
export * from './add-source';
export * from './bodies';
export * from './constants';
export * from './errors';
export * from './host-knobs';
export * from './import-file';
export * from './probe';
