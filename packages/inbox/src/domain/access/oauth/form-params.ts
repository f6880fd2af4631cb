/** Reading OAuth parameters: each may appear at most once (RFC 6749 §3.1, §3.2). */
import { OAuthError } from './oauth-error.js';

/** Parameters as a door hands them over: a name maps to every value sent under it. */
export type OAuthParams = Readonly<Record<string, readonly string[]>>;

export function optionalParam(params: OAuthParams, name: string): string | undefined {
  const values = params[name];
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw new OAuthError('invalid_request', `The parameter ${name} was sent more than once.`);
  const value = values[0];
  return value === '' ? undefined : value;
}

export function requiredParam(params: OAuthParams, name: string): string {
  const value = optionalParam(params, name);
  if (value === undefined) throw new OAuthError('invalid_request', `The parameter ${name} is missing.`);
  return value;
}

/** RFC 8707: the resource indicator, which must name `expected` when sent (repeats must agree). */
export function checkResource(params: OAuthParams, expected: string): void {
  for (const value of params.resource ?? []) {
    if (value.replace(/\/$/, '') !== expected) {
      throw new OAuthError('invalid_target', `Tokens here are only for the owner MCP, resource ${expected}.`);
    }
  }
}
