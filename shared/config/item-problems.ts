import * as z from 'zod';
import type { FieldProblem } from './errors';

/**
 * What every kind of Sources item (council source, broadcast, …) shares when it is read: its key and
 * how a failed parse is reported — per field, named as on-call sees it in the DynamoDB console.
 */

/** The Sources table's key, for every kind of item. */
export const sourceIdField = z
  .string({ error: 'is required' })
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'must be 2–63 characters of a–z, 0–9 and "-"');

/** The `sourceId` a raw item states, for reporting a broken one. */
export function rawSourceIdOf(raw: unknown): string {
  return raw && typeof raw === 'object' && typeof (raw as { sourceId?: unknown }).sourceId === 'string'
    ? (raw as { sourceId: string }).sourceId
    : '(missing sourceId)';
}

/** A failed parse of any Sources item as per-field problems, named as on-call sees them. */
export function fieldProblemsOf(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join('.') : '(item)',
    message:
      issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : issue.message,
  }));
}

/**
 * What on-call and the CLI note on every kind of Sources item: a free text ("slowed down on request
 * of …") and the audit fields the CLI writes.
 */
export const editTrailFields = {
  note: z.string().max(2000).optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  updatedBy: z.string().optional(),
};

/** The edit trail as written: every tool that changes an item stamps `updatedAt` and `updatedBy`. */
export type EditTrail = { [K in keyof typeof editTrailFields]?: string };
