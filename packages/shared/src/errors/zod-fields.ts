/** Turns zod issues into the `fields[]` of an invalid_input problem. */
import type { z } from 'zod';
import { Problem, type FieldProblem } from './problem.js';

export function fieldsFromZod(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.') || '(body)';
    const isMissing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    return { path, problem: isMissing ? 'missing' : 'invalid', message: isMissing ? `${path} is required.` : issue.message };
  });
}

export function problemFromZod(error: z.ZodError): Problem {
  const fields = fieldsFromZod(error);
  const names = [...new Set(fields.map((f) => f.path))].join(', ');
  return new Problem('invalid_input', `Fix these fields: ${names}.`, { fields });
}
