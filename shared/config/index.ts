export {
  API_ID_KEY_MIN_CHARS,
  ApiIdKeyError,
  type ApiIdKeySource,
  apiIdKey,
  ensureApiIdKey,
  hasApiIdKey,
  installApiIdKey,
  parseApiIdKey,
  resetApiIdKey,
} from './api-id-key';
export * from './broadcast';
export * from './env';
export * from './errors';
export * from './geo-source';
export type { EditTrail } from './item-problems';
export * from './other-items';
export {
  resetSecretsProvider,
  resetUpstashCredentialsCache,
  type UpstashCredentials,
  upstashCredentials,
} from './secrets';
export * from './source';
export {
  DEFAULT_STACK_NAME,
  OPTIONAL_STACK_OUTPUTS,
  type OptionalStackOutputKey,
  STACK_OUTPUT_ENV,
  type StackOutputKey,
} from './stack-outputs';
export { BROWSER_AGENT, USER_AGENT_CONTROL_CHARACTERS, userAgentProblem } from './user-agent';
export { type WarmRuntime, warmRuntime } from './warm-runtime';
