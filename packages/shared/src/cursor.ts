/**
 * Opaque page cursors: base64url JSON. The content is ours to change; clients only hand it back.
 * A cursor that does not decode is an input problem on the `cursor` field, never a crash.
 */
import { invalidField } from './errors/problem.js';

export function encodeCursor(position: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

export function decodeCursor<T extends Record<string, unknown>>(cursor: string, isValid: (value: unknown) => value is T): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidField('cursor', 'cursor is not one this service gave out.');
  }
  if (!isValid(value)) throw invalidField('cursor', 'cursor is not one this service gave out.');
  return value;
}
