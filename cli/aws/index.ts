/** The CLI's `--aws` mode: the deployed stack's resources, and the shared pace it must keep. */
export { openAwsRuntime } from './runtime';
export { commandFetches, hasSharedSlots, requireSharedSlots } from './shared-slots';
export { readStackEnv, StackOutputsError } from './stack-outputs';
