/**
 * Where everything OAuth lives, derived from the instance's public base URL, and the two metadata
 * documents: protected resource (RFC 9728) for the owner MCP and authorization server (RFC 8414).
 * The inbox is its own authorization server: the issuer is the base URL itself.
 */
import { ALL_SCOPES } from '../api-keys.js';

export interface OAuthEndpoints {
  issuer: string;
  /** The owner MCP: the only resource tokens are issued for (RFC 8707 audience). */
  resource: string;
  resourceMetadata: string;
  authorizationServerMetadata: string;
  authorization: string;
  token: string;
  registration: string;
  revocation: string;
  documentation: string;
}

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp/owner';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const AUTHORIZATION_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTRATION_PATH = '/oauth/register';
export const REVOCATION_PATH = '/oauth/revoke';

export function oauthEndpoints(publicBaseUrl: string): OAuthEndpoints {
  const base = publicBaseUrl.replace(/\/$/, '');
  return {
    issuer: base,
    resource: `${base}/mcp/owner`,
    resourceMetadata: `${base}${RESOURCE_METADATA_PATH}`,
    authorizationServerMetadata: `${base}${AUTHORIZATION_SERVER_METADATA_PATH}`,
    authorization: `${base}${AUTHORIZATION_PATH}`,
    token: `${base}${TOKEN_PATH}`,
    registration: `${base}${REGISTRATION_PATH}`,
    revocation: `${base}${REVOCATION_PATH}`,
    documentation: `${base}/docs/agents`,
  };
}

/** RFC 9728 §2, as the MCP authorization specification asks of an MCP server. */
export function protectedResourceMetadata(endpoints: OAuthEndpoints) {
  return {
    resource: endpoints.resource,
    authorization_servers: [endpoints.issuer],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Business inbox (owner)',
    resource_documentation: endpoints.documentation,
  };
}

/** RFC 8414 §2: public clients with PKCE S256 only, dynamic registration, rotation, revocation. */
export function authorizationServerMetadata(endpoints: OAuthEndpoints) {
  return {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    revocation_endpoint: endpoints.revocation,
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: endpoints.documentation,
  };
}

/**
 * The Bearer challenge of owner 401s: where the resource metadata is (RFC 9728 §5.1), kept with
 * whatever realm and error the refusal already named.
 */
export function ownerChallenge(publicBaseUrl: string, existing: string | undefined): string {
  const pointer = `resource_metadata="${oauthEndpoints(publicBaseUrl).resourceMetadata}"`;
  if (existing?.includes('resource_metadata=')) return existing;
  const params = existing?.replace(/^\s*Bearer\s*/i, '').trim();
  return params ? `Bearer ${params}, ${pointer}` : `Bearer realm="owner", ${pointer}`;
}

