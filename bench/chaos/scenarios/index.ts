import type { Scenario } from '../scenario';
import { HOSTILE_SCENARIOS } from './hostile';
import { STACK_SCENARIOS } from './stack';

/** The catalogue, in the order of docs/reliability.md. */
export const SCENARIOS: Scenario[] = [...HOSTILE_SCENARIOS, ...STACK_SCENARIOS];
