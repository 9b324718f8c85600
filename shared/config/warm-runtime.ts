import { ensureApiIdKey } from './api-id-key';
import type { IngestorEnv } from './env';
import { upstashCredentials } from './secrets';

/**
 * A function's runtime, kept for the life of a warm Lambda instance — but not a failed one, and not
 * one built with an Upstash token that has since been rotated:
 * - the key of the mirror's ids is loaded (once per process) before the first build;
 * - a build that failed (e.g. the secret could not be read) is forgotten, so the next invocation
 *   builds again instead of failing until the instance is recycled;
 * - each invocation asks for the credentials (Powertools serves them from its cache, asking Secrets
 *   Manager at most every UPSTASH_SECRET_MAX_AGE_S); a changed token closes the old runtime and
 *   builds a new one. Should that check fail while a runtime exists, the runtime goes on as it is.
 */
export interface WarmRuntime<T> {
  get(): Promise<T>;
  /** Replaces how the runtime is built (local runner options); the next `get` builds anew. */
  configure(build: () => Promise<T>): void;
}

interface Built<T> {
  token: string | undefined;
  runtime: Promise<T>;
}

export function warmRuntime<T extends { close(): Promise<void> }>(
  env: () => IngestorEnv,
  build: () => Promise<T>,
): WarmRuntime<T> {
  let current: Built<T> | undefined;
  let make = build;

  function retire(old: Built<T> | undefined): void {
    // A Lambda instance runs one invocation at a time: nothing else uses the old runtime now.
    void old?.runtime.then((rt) => rt.close()).catch(() => undefined);
  }

  return {
    async get() {
      let token: string | undefined;
      try {
        token = (await upstashCredentials(env()))?.token;
      } catch (error) {
        if (current) return current.runtime;
        throw error;
      }
      if (current && current.token !== token) {
        retire(current);
        current = undefined;
      }
      if (!current) {
        // Every function derives mirror ids (issue 25 point 5): the key is read once, before any build.
        await ensureApiIdKey(env());
        const built: Built<T> = { token, runtime: make() };
        current = built;
        built.runtime.catch(() => {
          if (current === built) current = undefined;
        });
      }
      return current.runtime;
    },
    configure(next) {
      retire(current);
      current = undefined;
      make = next;
    },
  };
}
