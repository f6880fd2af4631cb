/** The agent guide at /docs/agents: how a customer's agent books, orders, asks and follows up here. */
export const AGENT_GUIDE = `# Using this business inbox as an agent

1. Read the business: GET /v1/business (name, time zone, currency, languages, item types),
   GET /v1/services and GET /v1/products (prices are integers in minor units).
2. Book: GET /v1/availability?service=<id>&from=<date>&to=<date> lists free start times in the
   business's time zone; POST /v1/bookings {payload: {serviceId, startTime, partySize}, contact, message}.
   Order: POST /v1/orders {payload: {lines: [{productId, quantity}]}}. Ask for a price:
   POST /v1/quotes {payload: {description}}. Write: POST /v1/messages {message}.
3. Send an Idempotency-Key header (or idempotency_key) with every write; a retry with the same key
   returns the first answer and never creates a second item.
4. Keep the accessToken of the answer. It reads (GET /v1/items/{id}), cancels
   (POST /v1/items/{id}/cancel), answers offers (POST /v1/items/{id}/accept or /decline) and writes
   on the item (POST /v1/messages {item_id, message}); send it as Authorization: Bearer <accessToken>
   (or header x-access-token, or access_token in the query).
5. The business sets prices: a price you send is kept as customerStatedPrice and never changes the
   price. Nothing is confirmed until the business confirms it; \`next\` in the item says what you may do.
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

The whole interface: /openapi.json.
`;
