import type { Scenario } from '../scenario';
import { HOSTILE_SCENARIOS } from './hostile';

/** The catalogue, in the order of docs/reliability.md. */
export const SCENARIOS: Scenario[] = [...HOSTILE_SCENARIOS];
