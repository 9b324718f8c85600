/**
 * OTH-4: the geo refresh runs daily at this time of day (Europe/Berlin), in the night and away from
 * the full syncs' default hour. The CDK schedule (infra/stack.ts) and the rules page read it here.
 */
export const GEO_REFRESH_HOUR = 4;
export const GEO_REFRESH_MINUTE = 20;
