import type { Scenario } from '../scenario';
import { API_FLOOD_SCENARIOS } from './api-flood';
import { CONFIG_SCENARIOS } from './config';
import { FEED_SCENARIOS } from './feed';
import { HOSTILE_SCENARIOS } from './hostile';
import { POISON_PDF_SCENARIOS } from './poison-pdf';
import { PREVIEW_SCENARIOS } from './preview';
import { STACK_SCENARIOS } from './stack';
import { TAKEDOWN_SCENARIOS } from './takedown';
import { TRUST_SCENARIOS } from './trust';

/** The catalogue, in the order of docs/reliability.md. */
export const SCENARIOS: Scenario[] = [
  ...HOSTILE_SCENARIOS,
  ...STACK_SCENARIOS,
  ...TAKEDOWN_SCENARIOS,
  ...FEED_SCENARIOS,
  ...PREVIEW_SCENARIOS,
  ...CONFIG_SCENARIOS,
  ...TRUST_SCENARIOS,
  ...POISON_PDF_SCENARIOS,
  ...API_FLOOD_SCENARIOS,
];
