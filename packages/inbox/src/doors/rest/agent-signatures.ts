/**
 * Signed agents at the door (docs/identity.md): every public request that carries an HTTP Message
 * Signature is checked under svc-agent/1 before its input is validated. A signature that verifies
 * names the agent for the call (its key's thumbprint, its platform); one that does not is no refusal:
 * the request is served as unsigned and the answer says why in `Svc-Signature: invalid; reason=…`.
 * Platforms' key directories are fetched through the SSRF-safe publicFetch and cached.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AGENT_PROFILE,
  createInstanceKeyCache,
  hasSignature,
  invalidSignatureHeader,
  publicFetch,
  rawBodyOf,
  verifyAgentRequest,
  type VerifiedAgentRequest,
} from '@svc/shared';

/** Paths no agent signature is read on: the owner's doors, OAuth and the mail door have their own credentials. */
function agentPath(path: string): boolean {
  if (path === '/v1/owner' || path.startsWith('/v1/owner/') || path === '/mcp/owner') return false;
  if (path.startsWith('/oauth') || path.startsWith('/.well-known/')) return false;
  return path !== '/v1/email/inbound';
}

export interface AgentSignatureOptions {
  publicBaseUrl: string;
  now: () => number;
  /** Development: platforms on 127.0.0.1 over http (INBOX_ALLOW_LOCAL_NETWORKS). */
  allowLocal: boolean;
}

/** Directory reads: 3 s, 64 KiB; keys kept an hour; a new platform at most 30 a minute in all. */
const DIRECTORY_TIMEOUT_MS = 3_000;
const DIRECTORY_MAX_BYTES = 64 * 1024;
const DIRECTORY_TTL_SECONDS = 3_600;
const NEW_PLATFORMS_PER_MINUTE = 30;

export interface AgentSignatures {
  /** The verified signature of a request, when it carried one that verified. */
  of(request: FastifyRequest): VerifiedAgentRequest | undefined;
}

export function installAgentSignatures(app: FastifyInstance, options: AgentSignatureOptions): AgentSignatures {
  const verified = new WeakMap<FastifyRequest, VerifiedAgentRequest>();
  const fetchedPlatforms = new Set<string>();
  let windowStart = 0;
  let newInWindow = 0;
  const keys = createInstanceKeyCache({
    ttlSeconds: DIRECTORY_TTL_SECONDS,
    now: options.now,
    fetchKeys: async (platform) => {
      // Anyone can name a platform: a flood of new ones costs us a bounded number of fetches.
      if (!fetchedPlatforms.has(platform)) {
        const at = options.now();
        if (at - windowStart >= 60_000) {
          windowStart = at;
          newInWindow = 0;
        }
        if (newInWindow >= NEW_PLATFORMS_PER_MINUTE) throw new Error('too many new platforms this minute');
        newInWindow += 1;
      }
      const answer = await publicFetch(`${platform}${AGENT_PROFILE.directoryPath}`, {
        timeoutMs: DIRECTORY_TIMEOUT_MS,
        maxBytes: DIRECTORY_MAX_BYTES,
        allowLoopback: options.allowLocal,
        allowHttp: options.allowLocal,
        headers: { accept: 'application/http-message-signatures-directory+json, application/json' },
      });
      if (answer.status !== 200) throw new Error(`the key directory answered HTTP ${answer.status}`);
      const document = JSON.parse(answer.body) as { keys?: unknown };
      if (fetchedPlatforms.size > 10_000) fetchedPlatforms.clear();
      fetchedPlatforms.add(platform);
      return Array.isArray(document.keys) ? document.keys : [];
    },
  });

  // A callback hook that only becomes async for a signed request: every request passes here, and
  // most carry no signature (a promise per request cost more than the check).
  app.addHook('preValidation', (request, reply, done) => {
    const path = request.url.split('?')[0] ?? '/';
    if (!agentPath(path) || !hasSignature(request.headers)) {
      done();
      return;
    }
    verifySigned(request, reply).then(() => done(), done);
  });

  async function verifySigned(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const result = await verifyAgentRequest(
      { method: request.method, url: `${options.publicBaseUrl}${request.url}`, headers: request.headers, body: rawBodyOf(request) },
      {
        now: options.now,
        allowHttpPlatform: options.allowLocal,
        lookupDirectoryKey: ({ keyid, platform }) => keys.lookup({ keyid, instance: platform }),
      },
    );
    if (result.ok) {
      verified.set(request, result);
      reply.header('svc-signature', `verified; keyid="${result.jkt}"`);
    } else {
      reply.header('svc-signature', invalidSignatureHeader(result.reason));
    }
  }

  return { of: (request) => verified.get(request) };
}
