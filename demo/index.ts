// The fake council system: a loopback OParl server for integration tests and the `npm start` demo.

export { DEMO_BODIES, DEMO_OBJECTS_PER_LIST, type DemoCouncilOptions, startDemoCouncil } from './demo';
export { DEMO_PLAN_TYPE, demoPlans, GEOPORTAL_PREFIX, geoportalReply } from './geoportal';
export { buildPdf } from './pdf';
export { ROBOTS_ALLOW_ALL, robotsScripts } from './robots';
export { startFakeCouncil } from './server';
export { DEMO_STREAM_PLAYLIST_PATH, DEMO_STREAM_POINTERS, DEMO_STREAM_STATUS_PATH } from './stream';
export * from './types';
