/** Turns zod issues into the `fields[]` of an invalid_input problem. */
import type { z } from 'zod';
import { escapeUnsafe } from '../text/unsafe-text.js';
import { Problem, type FieldProblem } from './problem.js';

/** A caller's own property names can hold anything: control and bidi characters are named escaped, never echoed. */
function joinPath(path: readonly PropertyKey[]): string {
  return path.map((part) => escapeUnsafe(String(part))).join('.') || '(body)';
}

export function fieldsFromZod(error: z.ZodError): FieldProblem[] {
  return error.issues.flatMap((issue): FieldProblem[] => {
    // An unknown key is a problem of that key, not of the object holding it: name each one.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: joinPath([...issue.path, key]), problem: 'invalid', message: `${escapeUnsafe(key)} is not a known field.` }));
    }
    const path = joinPath(issue.path);
    const isMissing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    return [{ path, problem: isMissing ? 'missing' : 'invalid', message: isMissing ? `${path} is required.` : issue.message }];
  });
}

export function problemFromZod(error: z.ZodError): Problem {
  const fields = fieldsFromZod(error);
  const names = [...new Set(fields.map((f) => f.path))].join(', ');
  return new Problem('invalid_input', `Fix these fields: ${names}.`, { fields });
}

/** The same fields as a 400 bad_request, for services whose contract answers invalid parameters with 400. */
export function badRequestFromZod(error: z.ZodError): Problem {
  const fields = fieldsFromZod(error);
  const names = [...new Set(fields.map((f) => f.path))].join(', ');
  return new Problem('bad_request', `Invalid parameters: ${names}.`, { fields });
}
