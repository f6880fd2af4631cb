/**
 * A person's pass or key is never put in a URL (inbox spec §4): a URL ends up in logs, histories,
 * caches and Referer headers. A request whose query names `pass` or `key`, or carries anything
 * spelled like a pass or a key (`svcpass1_…`, `svckey1_…`), is refused before any route runs, on
 * every path and method (REST and MCP alike), so nothing of it is read, kept or sent to a network.
 * Passes go in the Svc-Pass header; a write may carry them in its body.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '@svc/shared';

/** Query parameter names that would carry a person's pass or key. */
const PASS_PARAMETERS = new Set(['pass', 'key']);
/** The prefixes of passes, pass references and keys (shared identity/person-tokens.ts), in any case. */
const PERSON_TOKEN = /svc(?:pass|key)1_/i;

/** Where a URL (path and query, as requested) carries a pass or key: a query parameter's name, `(path)`, or null. */
export function passInUrl(url: string): string | null {
  const mark = url.indexOf('?');
  if (mark < 0) return PERSON_TOKEN.test(url) ? '(path)' : null;
  if (PERSON_TOKEN.test(url.slice(0, mark))) return '(path)';
  const query = url.slice(mark + 1);
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(query);
  } catch {
    return null;
  }
  for (const [name, value] of params) {
    if (PASS_PARAMETERS.has(name.toLowerCase()) || PERSON_TOKEN.test(name) || PERSON_TOKEN.test(value)) return name;
  }
  // Spelled with percent-escapes URLSearchParams could not decode, a token is still a token.
  return PERSON_TOKEN.test(query) ? '(query)' : null;
}

export function passesInUrlProblem(parameter: string): Problem {
  return new Problem('invalid_input', 'A pass or key is never put in a URL: send passes in the Svc-Pass header (a write may carry them in its body as `pass` or `key`). Nothing of this request was read.', {
    fields: [{ path: parameter, problem: 'invalid', message: 'Never in a URL: send it in the Svc-Pass header.' }],
  });
}

/** Refuses, before routing, every request whose URL carries a pass or key. */
export function refusePassesInUrl(app: FastifyInstance): void {
  // A callback hook: every request passes here (a promise each would cost more than the check).
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const parameter = passInUrl(request.url);
    done(parameter === null ? undefined : passesInUrlProblem(parameter));
  });
}
