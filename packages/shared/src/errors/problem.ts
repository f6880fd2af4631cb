/**
 * RFC 9457 problem documents. Domain code throws `Problem`; each door renders it
 * (REST as application/problem+json, MCP as structuredContent.error).
 */
import { PROBLEM_CODES, type ProblemCode } from './problem-codes.js';

export interface FieldProblem {
  /** Dotted path of the input field, e.g. `payload.startTime`. */
  path: string;
  problem: 'missing' | 'invalid';
  message: string;
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  fields?: FieldProblem[];
  [extension: string]: unknown;
}

export class Problem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly fields: FieldProblem[] | undefined;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ProblemCode,
    detail: string,
    options: { fields?: FieldProblem[]; extensions?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'Problem';
    this.code = code;
    this.status = PROBLEM_CODES[code].status;
    this.fields = options.fields;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  toDocument(problemsBase: string): ProblemDocument {
    const doc: ProblemDocument = {
      ...this.extensions,
      type: `${problemsBase.replace(/\/$/, '')}/${this.code}`,
      title: PROBLEM_CODES[this.code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
    };
    if (this.fields && this.fields.length > 0) doc.fields = this.fields;
    return doc;
  }
}

/** One invalid field, the most common refusal. */
export function invalidField(path: string, message: string, problem: FieldProblem['problem'] = 'invalid'): Problem {
  return new Problem('invalid_input', message, { fields: [{ path, problem, message }] });
}

export function notFound(what: string): Problem {
  return new Problem('not_found', `${what} was not found.`);
}
