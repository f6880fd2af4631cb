/**
 * Every text of every input, on every door, is checked once here before an operation runs (issue
 * 19; docs/security.md "Strict inputs"): a control character (U+0000–U+001F, U+007F–U+009F), a
 * bidi mark, embedding, override or isolate, or a lone surrogate is refused with 422 invalid_input
 * naming the field, so none is stored, shown to the owner or sent in a webhook.
 *
 * Tab, line feed and carriage return are kept in the texts people write at length (a message, a
 * description, a reason, a note, a street address); every other text is a single line (names,
 * titles, emails, ids, URLs, header values, keys of every object) and refuses them too.
 */
import { Problem, unsafeTextFields } from '@svc/shared';

/** Property names of the multi-line texts, wherever they sit in an input. */
export const MULTI_LINE_FIELDS: ReadonlySet<string> = new Set(['message', 'description', 'reason', 'note', 'streetAddress']);

function isMultiLine(path: readonly (string | number)[]): boolean {
  const name = path[path.length - 1];
  return typeof name === 'string' && MULTI_LINE_FIELDS.has(name);
}

export function refuseUnsafeText(input: unknown): void {
  const fields = unsafeTextFields(input, { multiLine: isMultiLine });
  if (fields.length === 0) return;
  const names = [...new Set(fields.map((f) => f.path))].join(', ');
  throw new Problem('invalid_input', `Fix these fields: ${names}. They hold control or text-direction characters, which no text here may hold.`, { fields });
}
