/** The agent guide at /docs/agents: how a customer's agent books, orders, asks and follows up here. */
import { AGENT_PROFILE } from '@svc/shared';

export const AGENT_GUIDE = `# Using this business inbox as an agent

1. Read the business: GET /v1/business (name, time zone, currency, languages, item types),
   GET /v1/services and GET /v1/products (prices are integers in minor units).
2. Book: GET /v1/availability?service=<id>&from=<date>&to=<date> lists free start times in the
   business's time zone; POST /v1/bookings {payload: {serviceId, startTime, partySize}, contact, message}.
   Every time you send carries its offset (2026-12-04T11:00:00+00:00 or ...Z); a time without one is
   refused, since it would name a different moment in each zone.
   Order: POST /v1/orders {payload: {lines: [{productId, quantity}]}}. Ask for a price:
   POST /v1/quotes {payload: {description}}. Write: POST /v1/messages {message}.
   \`contact\` is how the business reaches the person you act for: {name, email, phone, locale}. With an
   email the business mails them (a confirmation, a reply, a reminder the day before) with a link to a
   page where they can read, reply and cancel; \`locale\` (a BCP 47 tag such as pt-PT) is the language
   those mails and that page are written in. Send it whenever you know it; without it they are in the
   business's language, which may not be the person's.
3. Send an Idempotency-Key header (or idempotency_key) with every write: a fresh random one (a UUID)
   per request, and the same one when you retry it. A retry with the same key returns the first answer
   and never creates a second item. Keys are yours alone: they belong to the door you used (REST or
   MCP: retry through the same one) and to you: your signing key when you sign, the person's pass when
   you send one, otherwise the network address you call from. A retry from another address without
   a signature or a pass is a new request.
4. Keep the accessToken of the answer. It reads (GET /v1/items/{id}), cancels
   (POST /v1/items/{id}/cancel), answers offers (POST /v1/items/{id}/accept or /decline) and writes
   on the item (POST /v1/messages {item_id, message}); send it as Authorization: Bearer <accessToken>
   (or header x-access-token, or access_token in the query; in a signed request, a header or the body).
   The person you act for can see the item in a browser, reply and cancel there:
   /i/{id}?access_token=<accessToken> (the page swaps the token for a cookie at once and sends no Referer).
5. The business sets prices: a price you send is kept as customerStatedPrice and never changes the
   price. Nothing is confirmed until the business confirms it: a booking in state \`requested\` holds
   no place, and the same time may still go to someone else. Follow it by reading its status,
   GET /v1/items/{id} with its accessToken, now and then (every few minutes at first, then hourly; the
   answer is small and never cached): \`state\` becomes confirmed, declined or proposed (another time,
   in \`payload.proposal\`: accept it with POST /v1/items/{id}/accept), or needs_info (answer with
   POST /v1/messages {item_id, message}); \`next\` says what you may do, and \`conversation\` holds what
   the business wrote (its replies carry the business's name).
6. Refusals are problem documents (application/problem+json) whose \`fields\` name what to fix. A time
   the business cannot take is 409 slot_taken with \`next_free\`: the nearest start times you can book.
   429 means wait \`Retry-After\` seconds; \`RateLimit\` says how many calls are left.
7. Receipts: when the business confirms, accepts or ends a promise, the item's \`receipts\` carry a
   receipt it signed (a compact JWS; its keys are at /.well-known/jwks.json). Counter-sign one with your
   own Ed25519 key: POST /v1/items/{id}/receipt-ack {ack} where ack is a compact JWS with header
   {alg: EdDSA, typ: svc-receipt-ack+jws, jwk: your public key} and payload {rcp: receipt_id,
   sha: base64url SHA-256 of the receipt's jws, iat: now}, sent within the hour it was signed. Or, in a
   request you sign (svc-agent/1), send {receipt_id} alone: the signature is your counter-signature and
   is kept as signed, so send the access token in X-Access-Token, never in what you sign.

## Signing your requests (${AGENT_PROFILE.name}, Web Bot Auth compatible)

Signing is optional: an unsigned request is served the same. A signed one tells the business which
agent it deals with (the owner sees your key on the items you make), opens the items your key
created without their token, and keeps your idempotency keys yours wherever you call from.

- RFC 9421 HTTP Message Signatures with Ed25519: headers Signature-Input and Signature, label \`${AGENT_PROFILE.label}\`.
- Your own key: send its public JWK as \`Svc-Agent-Key: ${AGENT_PROFILE.label}=:<base64 of the JWK's JSON>:\`,
  tag \`svc-agent\`. Or a platform's key (Web Bot Auth): \`Signature-Agent: "https://platform.example"\`,
  the key published in \`https://platform.example${AGENT_PROFILE.directoryPath}\`, tag \`web-bot-auth\`.
- keyid: the key's RFC 7638 thumbprint. Parameters created, expires (at most ${AGENT_PROFILE.maxValiditySeconds} s after
  created), nonce (${AGENT_PROFILE.nonceMinLength} to ${AGENT_PROFILE.nonceMaxLength} characters), keyid, tag; alg="ed25519" if you send alg.
- Cover \`@authority\` (this inbox's host) and your key's header (svc-agent-key or signature-agent);
  on anything but GET and HEAD also \`@method\`, \`@path\`, \`@query\` when there is one, and
  \`content-digest\` (RFC 9530, sha-256 of the body as sent) when there is a body.
- Sign every request anew: a signed change is taken once, and the same signature again is a retry
  only with the same idempotency key (otherwise 401 replayed_signature).
- Every answer to a signed request says what became of the signature in \`Svc-Signature\`:
  \`verified; keyid="<thumbprint>"\`, or \`invalid; reason=<reason>\` (malformed, profile_mismatch,
  component_missing, too_far_in_future, expired, digest_mismatch, unknown_key, key_unavailable,
  bad_signature, missing). An invalid signature is no refusal: the request was served as unsigned.

## A person's passes

A person known to a directory network holds passes (\`svcpass1_…\`) and, once, a key (\`svckey1_…\`)
the network mailed them. Send them in the header \`Svc-Pass\`, an RFC 8941 list of strings, at most 8:
\`Svc-Pass: "svcpass1_…"\`. A write may carry them in its body as \`pass\` (space-separated) and
\`key\` instead; a read takes them from the header only. Never put a pass or key in a URL: such a
request is refused (422) and nothing of it is read. A key becomes a pass in the answer
(\`identity.passes\`): keep that pass. With a pass the network recognises, status, cancel and the
other calls on an item need no token for an item the business knows the person by. In a signed
request send a pass reference (\`svcpass1_<network>_<id>\`, delegated to your key) and cover
svc-pass; a full pass or key there is a secret and is not passed on. Which networks this inbox
takes passes from: \`agent_policy\` in /.well-known/agent-inbox.json.

The whole interface: /openapi.json.
`;
