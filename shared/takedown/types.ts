import type { MirrorMeta } from '../mirror';

/** Who took an object down, when and why (OPT-2), kept on the record and its index entry. */
export interface TakedownMark {
  at: string;
  by: string;
  note?: string;
}

/** The mirror record's meta with the operator's mark. */
export type TakedownMeta = MirrorMeta & { takedown?: TakedownMark };

/** Counts per OParl type (`file`, `paper` …) plus our copies: `files` (S3 `files/…`) and `texts` (`text/…`). */
export type PurgeCounts = Record<string, number> & { files: number; texts: number };
