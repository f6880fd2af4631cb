/**
 * What the inbox's /openapi.json says beyond the operation table: licence, contact, tags, the
 * security schemes (owner and integration keys, OAuth 2.1 for AI apps, the item access token in its
 * three forms), and the `webhooks` section with one entry per event type the machines can emit.
 * See docs/openapi.md.
 */
import { PROJECT_LICENSE, jsonSchemaOf, type JsonSchema, type OpenApiInfo, type OpenApiTag, type OperationMeta } from '@svc/shared';
import { allEventTypes, fullEventSchema, fullReceiptEventSchema, isReceiptEventType, testEventSchema, thinEventSchema } from '../../domain/events/event-schemas.js';
import { oauthEndpoints } from '../../domain/access/oauth/oauth-metadata.js';
import { SCOPE_WORDS } from '../../domain/access/oauth/scopes.js';
import { TEST_EVENT_TYPE } from '../../domain/webhooks/test-event.js';

const TAGS: readonly (OpenApiTag & { paths: readonly RegExp[] })[] = [
  { name: 'Catalogue', description: 'Public reads of the business: profile, services, products and free start times.', paths: [/^\/v1\/(business|services|products|availability)$/] },
  { name: 'Items', description: 'Public creates (booking, order, quote request, message) and what a customer does with an item, using its access token.', paths: [/^\/v1\/(quotes|bookings|orders|messages)$/, /^\/v1\/items\//] },
  { name: 'Customers', description: 'Who the customer is: proving the address an item carries with a one-time code.', paths: [/^\/v1\/customers\//] },
  { name: 'Owner items', description: "The owner's inbox: list and read items, fire transitions, reply, set flags.", paths: [/^\/v1\/owner\/items/] },
  { name: 'Owner setup', description: 'Profile, services, products, opening hours and closures.', paths: [/^\/v1\/owner\/(profile|services|products|availability)/] },
  { name: 'Owner settings', description: 'The settings document and the directory networks it names.', paths: [/^\/v1\/owner\/(settings|networks)/] },
  { name: 'Owner rules', description: "The owner's rules: a trigger, conditions and one action.", paths: [/^\/v1\/owner\/rules/] },
  { name: 'Owner access', description: "Owner and integration keys, AI apps connected over OAuth, and the instance's signing keys.", paths: [/^\/v1\/owner\/(api-keys|ai-apps|signing-keys)/] },
  { name: 'Owner feeds', description: 'Product feeds imported into the catalogue.', paths: [/^\/v1\/owner\/feeds/] },
  { name: 'Owner webhooks', description: 'Webhook endpoints, their deliveries, tests and replays.', paths: [/^\/v1\/owner\/(webhooks|deliveries)/] },
  { name: 'Owner events', description: 'The event stream, polled.', paths: [/^\/v1\/owner\/events/] },
  { name: 'Owner notifications', description: "Web Push to the owner's browsers: the instance's VAPID key and the browsers subscribed.", paths: [/^\/v1\/owner\/push\//] },
  { name: 'Webhook events', description: 'What the inbox POSTs to a registered webhook endpoint (Standard Webhooks v1): one entry per event type.', paths: [] },
];

export function inboxTagOf(op: Pick<OperationMeta, 'name' | 'http'>): string {
  const tag = TAGS.find((t) => t.paths.some((p) => p.test(op.http.path)));
  if (!tag) throw new Error(`no OpenAPI tag covers ${op.name} at ${op.http.path}; add one in openapi-document.ts`);
  return tag.name;
}

/** The security schemes: names stay stable, since clients generated from the document use them. */
export function inboxSecuritySchemes(publicBaseUrl: string): Record<string, JsonSchema> {
  const endpoints = oauthEndpoints(publicBaseUrl);
  return {
    ownerKey: {
      type: 'http',
      scheme: 'bearer',
      description: 'An owner or integration key (`svc_own_…`), sent as `Authorization: Bearer svc_own_…`. An integration key carries the scopes of its preset.',
    },
    aiApp: {
      type: 'oauth2',
      description: 'An AI app connected by the owner: OAuth 2.1 authorization code with PKCE (S256 only), dynamic registration; see /.well-known/oauth-authorization-server. Access tokens are `svc_oat_…`.',
      flows: { authorizationCode: { authorizationUrl: endpoints.authorization, tokenUrl: endpoints.token, refreshUrl: endpoints.token, scopes: { ...SCOPE_WORDS } } },
    },
    itemToken: {
      type: 'apiKey',
      in: 'header',
      name: 'x-access-token',
      description: "An item's access token (`svc_tok_…`, from its create answer), in header x-access-token. The form signed requests use.",
    },
    itemTokenBearer: {
      type: 'http',
      scheme: 'bearer',
      description: "An item's access token as `Authorization: Bearer svc_tok_…`.",
    },
    itemTokenQuery: {
      type: 'apiKey',
      in: 'query',
      name: 'access_token',
      description: "An item's access token in the query (or the body's `access_token`). Prefer a header: URLs end up in logs. Not taken from the URL of a signed request.",
    },
    agentSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'Signature',
      description:
        "A customer's agent may sign any public request: RFC 9421 HTTP Message Signatures with Ed25519, profile `svc-agent/1` (Web Bot Auth compatible), headers `Signature-Input` and `Signature`. The key is the agent's own, sent as `Svc-Agent-Key: svc=:<base64 of the public JWK>:` (signature tag `svc-agent`), or a platform's, named by `Signature-Agent: \"https://platform.example\"` and published in its `/.well-known/http-message-signatures-directory` (tag `web-bot-auth`). `keyid` is the key's RFC 7638 thumbprint. Covered: `@authority` and the key's header always; on a request other than GET or HEAD also `@method`, `@path`, `@query` when there is one, and `content-digest` (RFC 9530) when there is a body. Parameters `created`, `expires` (at most 300 s later), `nonce`, `keyid`, `tag`, `alg=\"ed25519\"`. Unsigned requests are served the same; a signature that does not verify counts as none, and every answer says what became of it in `Svc-Signature`. A signature covering method and path opens, without the token, the items its key created; a signed change is taken once (the same signature again is a retry only with the same idempotency key). See /docs/agents.",
    },
    personPass: {
      type: 'apiKey',
      in: 'header',
      name: 'Svc-Pass',
      description:
        "A person's passes from a directory network (`svcpass1_…`, or keys `svckey1_…` exchanged once for a pass), as an RFC 8941 list of strings, at most 8: `Svc-Pass: \"svcpass1_…\"`. A read takes passes from this header only; a write may carry them in its body as `pass` and `key` instead. Never in a URL: a URL that carries a pass or key is refused (422 invalid_input). With a pass the network recognises, the operations on an item open an item the business knows the person by without its token. In a signed request, send a pass reference (`svcpass1_<network>_<id>`, delegated to the signing key) and cover this header; a full pass or key there is a secret and is not forwarded.",
    },
  };
}

function webhookEntry(type: string): Record<string, unknown> {
  const isTest = type === TEST_EVENT_TYPE;
  const [itemType, event] = type.split('.') as [string, string];
  const isReceipt = isReceiptEventType(type);
  const side =
    event === 'message'
      ? ' An inbound message arrived on the item; the version does not change.'
      : event === 'flags'
        ? ' needsHuman was raised or cleared, or priority moved; the version does not change.'
        : event === 'receipt_issued'
          ? ' The inbox signed a receipt in the same transaction as the move that made it due; the full body carries it as data.receipt. The version does not change.'
          : event === 'receipt_acknowledged'
            ? " The customer's agent counter-signed a receipt (acknowledge_receipt); the full body carries it as data.receipt. The version does not change."
            : event === 'receipt_not_logged'
              ? ' A network took this receipt but its public evidence log does not hold it an hour later (the inbox checks every hour; get_networks counts them); the full body carries the receipt as data.receipt. The version does not change.'
              : '';
  const header = (name: string, description: string, schema: JsonSchema, required = true) => ({ name, in: 'header', required, description, schema });
  return {
    post: {
      operationId: `webhook_${type.replace('.', '_')}`,
      summary: isTest ? 'A test event (nothing was created)' : `${itemType}.${event}`,
      description: isTest
        ? 'Sent by POST /v1/owner/webhooks/{id}/test: a real, signed delivery whose data.id names no item.'
        : `Sent when a ${itemType.replace('_', ' ')} has the event ${event}.${side} The body is thin (the default) or full, as the endpoint's payload_style says.`,
      tags: ['Webhook events'],
      security: [],
      parameters: [
        header('webhook-id', 'The event id, stable across retries and replays: deduplicate on it.', { type: 'string' }),
        header('webhook-timestamp', 'Unix seconds; refuse a timestamp more than five minutes from now.', { type: 'string', pattern: '^[0-9]+$' }),
        header('webhook-signature', 'One or more space-separated `v1,<base64>` HMAC-SHA256 signatures of `{webhook-id}.{webhook-timestamp}.{body}`; any one matching is a pass.', { type: 'string' }),
        header('svc-event-type', 'The event type.', { type: 'string', const: type }),
        header('svc-delivery-attempt', 'The attempt, counting from 1.', { type: 'string', pattern: '^[1-9][0-9]*$' }),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: isTest
              ? { $ref: '#/components/schemas/TestEvent' }
              : { anyOf: [{ $ref: '#/components/schemas/ThinEvent' }, { $ref: `#/components/schemas/${isReceipt ? 'FullReceiptEvent' : 'FullEvent'}` }] },
          },
        },
      },
      responses: {
        '200': { description: 'Any 2xx is success (whatever the body).' },
        '400': { description: 'The signature did not verify; the inbox retries (eight attempts over a little over a day).' },
      },
    },
  };
}

function webhooks(): NonNullable<OpenApiInfo['webhooks']> {
  return {
    items: Object.fromEntries(allEventTypes().map((type) => [type, webhookEntry(type)])),
    schemas: {
      ThinEvent: jsonSchemaOf(thinEventSchema, 'output'),
      FullEvent: jsonSchemaOf(fullEventSchema, 'output'),
      FullReceiptEvent: jsonSchemaOf(fullReceiptEventSchema, 'output'),
      TestEvent: jsonSchemaOf(testEventSchema, 'output'),
    },
  };
}

/** Everything the inbox passes to installServiceRoutes for its document. */
export function inboxOpenApi(publicBaseUrl: string): { openApi: Omit<OpenApiInfo, 'version'>; securitySchemes: Record<string, JsonSchema> } {
  return {
    openApi: {
      title: 'Business inbox',
      description:
        "One business's inbox: bookings, orders, quote requests, messages and refunds as items with state machines. Public operations need no account (a create answers with the item's access token); a customer's agent may sign its requests (svc-agent/1, Web Bot Auth compatible: the agentSignature scheme) and send a person's passes in the Svc-Pass header (the personPass scheme; never in a URL). Owner operations need an owner or integration key, or an AI app's OAuth token. Refusals are RFC 9457 problem documents. The agent guide: /docs/agents.",
      serverUrl: publicBaseUrl,
      license: PROJECT_LICENSE,
      contact: { name: 'The business running this inbox', url: `${publicBaseUrl}/v1/business` },
      tags: TAGS.map(({ name, description }) => ({ name, description })),
      tagOf: inboxTagOf,
      security: { owner: ['ownerKey', 'aiApp'], item: ['itemToken', 'itemTokenBearer', 'itemTokenQuery', 'agentSignature', 'personPass'] },
      publicAnswerHeaders: {
        'Svc-Signature': {
          description:
            'On an answer to a request that carried an HTTP Message Signature: what became of it. `verified; keyid="<RFC 7638 thumbprint>"`, or `invalid; reason=<reason>` (malformed, profile_mismatch, component_missing, too_far_in_future, expired, digest_mismatch, unknown_key, key_unavailable, bad_signature, missing). An invalid signature is no refusal: the request was served as an unsigned one. See the agentSignature security scheme.',
          schema: { type: 'string', pattern: '^(verified; keyid="[A-Za-z0-9_-]+"|invalid; reason=[a-z_]+)$' },
        },
      },
      rateLimits: 'Integration keys are limited to about ten calls a second; anonymous callers may be limited too (limits not fixed yet). Wait Retry-After seconds.',
      webhooks: webhooks(),
    },
    securitySchemes: inboxSecuritySchemes(publicBaseUrl),
  };
}
