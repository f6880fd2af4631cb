/**
 * POST /v1/email/inbound (inbox spec §4 "Other paths", docs/mail.md): raw MIME from a mail provider's
 * webhook or a forwarder, authenticated by the shared secret in X-Inbox-Email-Secret, compared in
 * constant time with the sealed settings value email.inboundSecret. Not in the manifest.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Problem } from '@svc/shared';
import { loadSettings } from '../../domain/context.js';
import type { DomainContext } from '../../domain/context.js';
import type { IdentityKeys } from '../../domain/identity/identity-keys.js';
import { INBOUND_LIMITS, receiveInboundMail } from '../../domain/mail/inbound-mail.js';

export const EMAIL_INBOUND_PATH = '/v1/email/inbound';
/**
 * Media types a raw message may come as (docs/mail.md): a whole message (`message/rfc822`, or
 * `message/global` with UTF-8 headers), a message sent as text by a forwarder, or bytes of no named
 * kind. Anything else, JSON included (a provider's parsed-mail webhook), is 415.
 */
const RAW_TYPES = ['message/rfc822', 'message/global', 'text/plain', 'application/octet-stream'];
const WRONG_TYPE = 'Send the raw MIME message itself as message/rfc822 (text/plain and application/octet-stream are taken too), not a parsed form of it.';

function sameSecret(given: string, expected: string): boolean {
  // Hashes first: equal lengths, so the comparison's time says nothing of either secret.
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}

export function installEmailInbound(app: FastifyInstance, deps: { domain: () => DomainContext; keys: IdentityKeys }): void {
  void app.register(async (scope) => {
    // This door takes raw MIME only: the JSON parser every other route has is not this route's.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(RAW_TYPES, { parseAs: 'buffer', bodyLimit: INBOUND_LIMITS.maxBytes }, (_request, body, done) => done(null, body));
    scope.addContentTypeParser('*', (_request, _payload, done) => done(new Problem('unsupported_media_type', WRONG_TYPE)));
    scope.post(EMAIL_INBOUND_PATH, { bodyLimit: INBOUND_LIMITS.maxBytes }, async (request, reply) => {
      const ctx = deps.domain();
      const { settings } = await loadSettings(ctx.store);
      const expected = settings.email.inboundSecret;
      if (!expected) throw new Problem('not_allowed', 'The email door is off: the owner has not set email.inboundSecret.');
      const given = request.headers['x-inbox-email-secret'];
      if (typeof given !== 'string' || given === '') throw new Problem('unauthorized', 'Send the shared secret in X-Inbox-Email-Secret.');
      if (!sameSecret(given, expected)) throw new Problem('unauthorized', 'X-Inbox-Email-Secret is not this inbox\'s secret.');
      const raw = request.body;
      // No body, or one without a media type: nothing a parser took.
      if (!Buffer.isBuffer(raw)) throw new Problem('unsupported_media_type', WRONG_TYPE);
      const outcome = await receiveInboundMail(ctx, deps.keys, raw);
      reply.header('cache-control', 'no-store');
      return reply.code(outcome.created ? 201 : 200).send({ ok: true, ...outcome });
    });
  });
}
