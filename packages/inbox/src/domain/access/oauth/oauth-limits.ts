/** The numbers of OAuth 2.1 for the owner's MCP, each once, with why (docs/oauth.md). */

/** Access tokens are short-lived so a leaked one does little; refresh keeps the app connected. */
export const ACCESS_TOKEN_LIFE_MS = 60 * 60_000;
/** A refresh token lasts 30 days from its issue; each rotation starts a new 30 days. */
export const REFRESH_TOKEN_LIFE_MS = 30 * 86_400_000;
/** Codes are exchanged at once by a working client; 5 minutes leaves room for a slow one (OAuth 2.1 asks for short). */
export const CODE_LIFE_MS = 5 * 60_000;
/** How long the consent page waits for the owner. */
export const CONSENT_LIFE_MS = 10 * 60_000;
/** Wrong owner keys on one consent page before it closes, so it cannot be used to guess keys. */
export const CONSENT_MAX_FAILED_ATTEMPTS = 5;
/** A registered client that never got as far as a consent page is forgotten after a week. */
export const UNUSED_CLIENT_KEEP_MS = 7 * 86_400_000;
/** Expired codes, requests and tokens are deleted hourly. */
export const PRUNE_EVERY_MS = 3_600_000;

/** Registration limits: the endpoint is open to anyone, so what one request may store is bounded. */
export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2_000;
export const MAX_CLIENT_NAME_LENGTH = 100;
export const MAX_CLIENT_URI_LENGTH = 2_000;
export const MAX_STATE_LENGTH = 1_000;
/** Registrations one address may make per window, before 429. */
export const REGISTRATIONS_PER_WINDOW = 100;
export const REGISTRATION_WINDOW_MS = 60 * 60_000;

/** Token prefixes: recognisable in logs and by secret scanners; what follows is 32 random bytes. */
export const ACCESS_TOKEN_PREFIX = 'svc_oat_';
export const REFRESH_TOKEN_PREFIX = 'svc_ort_';
export const CODE_PREFIX = 'svc_oac_';
export const CLIENT_ID_PREFIX = 'svc_ocl_';
