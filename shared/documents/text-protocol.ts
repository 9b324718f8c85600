import type { ExtractedText } from './pdf-text';

/** Messages between the files function and its text worker (text-extractor.ts ⇄ text-worker.ts). */
export interface TextJob {
  id: number;
  /** The file's bytes, transferred (not copied) to the worker. */
  bytes: Uint8Array;
  contentType?: string;
  maxPages: number;
}

export type TextReply =
  /** Sent once, when pdf.js is loaded: the time bound counts reading, not the worker's start. */
  | { ready: true }
  | { id: number; ok: true; extracted: ExtractedText }
  | { id: number; ok: false; code: string; message: string };
