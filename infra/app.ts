// CDK entry (cdk.json: `npx tsx infra/app.ts`). The CLI synthesises the app when this process exits.
import { createApp } from './create-app';

createApp();
