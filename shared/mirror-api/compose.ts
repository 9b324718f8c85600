import { createFeedClients } from '../changes';
import type { IngestorEnv } from '../config';
import { mirrorTablePlacement } from '../store';
import { createMirrorApiLambda, type MirrorApiLambda } from './lambda';

/**
 * The API function's composition root: the clients (no fetcher, no slots) and the mirror's places. Its
 * role may read the Sources table, the mirror's items and `byList` index (the Mirror table, or State
 * before the move, issue 28), the State table's bodies and list counters, and `mirror/`
 * objects — it never reaches a council server.
 */
export function composeMirrorApi(e: IngestorEnv): MirrorApiLambda {
  return createMirrorApiLambda(
    createFeedClients(e),
    {
      bucket: e.BUCKET,
      tables: { sources: e.SOURCES_TABLE, state: e.STATE_TABLE, mirror: mirrorTablePlacement(e) },
    },
    { documents: e.INGESTOR_API_DOCUMENTS },
  );
}
