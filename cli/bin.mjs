#!/usr/bin/env node
// `npx ingestor …`: runs the TypeScript CLI through tsx, so no build step is needed locally.
import { register } from 'tsx/esm/api';

// The SDK warns on every process under Node 20 (the Lambdas run Node 22); local runs need no reminder.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
await import('./ingestor.ts');
