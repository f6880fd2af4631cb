/**
 * An OAuth refusal as OAuth clients expect it (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1):
 * `{error, error_description}` JSON, not a problem document, because client libraries parse these
 * codes to decide what to do next (docs/oauth.md).
 */
export type OAuthErrorCode =
  /** A parameter is missing, repeated or malformed. */
  | 'invalid_request'
  /** The client is unknown, or did not authenticate as it must. */
  | 'invalid_client'
  /** The code or refresh token is unknown, used, expired, or bound to another client, redirect or verifier. */
  | 'invalid_grant'
  /** The client may not use this grant. */
  | 'unauthorized_client'
  /** Only authorization_code and refresh_token are offered. */
  | 'unsupported_grant_type'
  /** A scope is not one of the key scopes, or more than was granted. */
  | 'invalid_scope'
  /** The resource indicator (RFC 8707) is not this server's owner MCP. */
  | 'invalid_target'
  /** Registration: a redirect URI is not https, nor http on loopback, or is malformed. */
  | 'invalid_redirect_uri'
  /** Registration: another metadata field is unacceptable. */
  | 'invalid_client_metadata'
  /** Authorization: only response_type=code is offered. */
  | 'unsupported_response_type'
  /** Authorization: the owner said no. */
  | 'access_denied'
  /** Too many requests from one address for now. */
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: OAuthErrorCode, description: string, options: { status?: number; headers?: Record<string, string> } = {}) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
    this.status = options.status ?? (code === 'invalid_client' ? 401 : code === 'temporarily_unavailable' ? 429 : 400);
    this.headers = options.headers ?? {};
  }

  toJson(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}
