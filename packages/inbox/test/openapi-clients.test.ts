/**
 * The inbox's /openapi.json as client authors read it (issue 12): Redocly's recommended rules and
 * Spectral's oas rules find nothing, every event the machines can emit is in the webhooks section
 * with bodies real events match, and a client generated from the document (openapi-typescript and
 * openapi-fetch) compiles, refuses a wrong field, and books, reads with the item token in a header
 * and lists as the owner against a live inbox.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redoclyProblems, spectralProblems } from '../../../test-support/openapi-lint.js';
import { typedClientFolder } from '../../../test-support/typed-client.js';
import { fullEnvelope } from '../src/domain/events/event-body.js';
import { fullEventSchema, testEventSchema, thinEventSchema } from '../src/domain/events/event-schemas.js';
import { MACHINES } from '../src/domain/machines/index.js';
import { ITEM_TYPES } from '../src/domain/types.js';
import { OPERATIONS } from '../src/operations/index.js';
import { startInbox, haircutAt, type TestInbox } from './support/harness.js';

let t: TestInbox;
let doc: any;
beforeAll(async () => {
  t = await startInbox();
  doc = (await t.request('GET', '/openapi.json')).body;
});
afterAll(() => t.close());

describe('linting', () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    expect(await redoclyProblems(doc)).toEqual([]);
  });

  it("passes Spectral's oas rules with no error and no warning", async () => {
    expect(await spectralProblems(doc)).toEqual([]);
  });

  it('still validates with swagger-parser', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
  });
});

describe('what the document declares', () => {
  const operations = () => Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item));

  it('has a licence, a contact, and a described root tag for every tag used', () => {
    expect(doc.info.license).toEqual({ name: expect.any(String), identifier: 'Apache-2.0' });
    expect(doc.info.contact.url).toMatch(/^http/);
    const declared = new Map(doc.tags.map((tag: any) => [tag.name, tag.description]));
    for (const op of operations()) for (const tag of op.tags) expect(declared.get(tag), `${op.operationId} ${tag}`).toBeTruthy();
  });

  it('gives every operation a security requirement: the key or OAuth with its scope, the item token, or none', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.itemToken).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-access-token' }));
    expect(schemes.itemTokenBearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(schemes.itemTokenQuery).toEqual(expect.objectContaining({ type: 'apiKey', in: 'query', name: 'access_token' }));
    expect(schemes.aiApp.flows.authorizationCode).toEqual(
      expect.objectContaining({ authorizationUrl: 'http://127.0.0.1/oauth/authorize', tokenUrl: 'http://127.0.0.1/oauth/token' }),
    );
    expect(Object.keys(schemes.aiApp.flows.authorizationCode.scopes).sort()).toEqual(
      ['inbox:read', 'inbox:write', 'events:read', 'catalogue:write', 'availability:write', 'settings:read', 'settings:write', 'setup:run', 'integrations:write', 'keys:write'].sort(),
    );
    expect(schemes.agentSignature).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Signature', description: expect.stringMatching(/svc-agent\/1.*Web Bot Auth.*Svc-Signature/s) }));
    expect(schemes.personPass).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Svc-Pass', description: expect.stringMatching(/Never in a URL/) }));
    // A bound signature of the key that created the item, or a pass of the person it was made for, opens it too.
    const item = [{ itemToken: [] }, { itemTokenBearer: [] }, { itemTokenQuery: [] }, { agentSignature: [] }, { personPass: [] }];
    for (const op of OPERATIONS) {
      const documented = doc.paths[op.http.path][op.http.method.toLowerCase()];
      if (op.audience === 'owner') expect(documented.security, op.name).toEqual([{ ownerKey: [] }, { aiApp: [op.scope] }]);
      else if (['get_item_status', 'cancel_item', 'accept_offer', 'decline_offer', 'acknowledge_receipt', 'verify_customer'].includes(op.name)) expect(documented.security, op.name).toEqual(item);
      else if (op.name === 'send_message') expect(documented.security).toEqual([...item, {}]);
      else expect(documented.security, op.name).toEqual([]);
      if (documented.security.length > 0) expect(documented.responses['401'].headers['WWW-Authenticate'], op.name).toBeDefined();
      expect(documented.responses['429'].headers, op.name).toEqual(expect.objectContaining({ 'Retry-After': expect.anything(), RateLimit: expect.anything() }));
      for (const [status, response] of Object.entries<any>(documented.responses)) {
        if (Number(status) >= 400) expect(response.content['application/problem+json'].schema, `${op.name} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' });
      }
    }
  });

  it('declares Location on creates, Idempotent-Replayed on replays, ETag and 304 on cacheable public reads', () => {
    const booking = doc.paths['/v1/bookings'].post;
    expect(booking.responses['201'].headers.Location).toEqual({ $ref: '#/components/headers/Location' });
    expect(booking.responses['200'].headers['Idempotent-Replayed']).toBeDefined();
    expect(doc.paths['/v1/owner/webhooks'].post.responses['201'].headers.Location).toBeDefined();
    expect(doc.paths['/v1/owner/services'].post.responses['201']).toBeDefined();
    for (const path of ['/v1/business', '/v1/services', '/v1/products', '/v1/availability']) {
      const read = doc.paths[path].get;
      expect(read.responses['200'].headers.ETag, path).toBeDefined();
      expect(read.responses['304'], path).toBeDefined();
      expect(read.parameters.map((p: any) => p.name), path).toContain('If-None-Match');
    }
    expect(doc.paths['/v1/owner/items'].get.responses['304']).toBeUndefined();
  });
});

describe('the webhooks section', () => {
  it('has every event the machines can emit, create and the side events of each item type, and inbox.test', () => {
    const emitted = new Set<string>(['inbox.test']);
    for (const type of ITEM_TYPES) {
      emitted.add(`${type}.create`).add(`${type}.message`).add(`${type}.flags`);
      for (const row of MACHINES[type].transitions) emitted.add(`${type}.${row.event}`);
    }
    // Receipts are signed for bookings, orders and refunds (docs/receipts.md); one a network did not log is told (docs/verifiable-order.md).
    for (const type of ['booking', 'order', 'refund']) emitted.add(`${type}.receipt_issued`).add(`${type}.receipt_acknowledged`).add(`${type}.receipt_not_logged`);
    expect(Object.keys(doc.webhooks).sort()).toEqual([...emitted].sort());
    for (const [type, item] of Object.entries<any>(doc.webhooks)) {
      const names = item.post.parameters.map((p: any) => p.name);
      expect(names, type).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'svc-event-type', 'svc-delivery-attempt']);
      expect(item.post.parameters[3].schema.const).toBe(type);
    }
    expect(doc.components.schemas.ThinEvent.required).toEqual(['id', 'type', 'timestamp', 'data']);
    expect(doc.components.schemas.FullEvent.properties.data.required).toEqual(expect.arrayContaining(['item', 'transitions', 'human', 'party']));
    expect(doc.components.schemas.FullReceiptEvent.properties.data.required).toEqual(expect.arrayContaining(['item', 'receipt']));
    expect(doc.webhooks['booking.receipt_issued'].post.requestBody.content['application/json'].schema.anyOf[1]).toEqual({ $ref: '#/components/schemas/FullReceiptEvent' });
  });

  it('describes real events: the stream entries are thin bodies, the full body of the same event matches FullEvent', async () => {
    const created = await t.request('POST', '/v1/bookings', { body: haircutAt('2026-12-01T10:00:00Z') });
    expect(created.status).toBe(201);
    const stream = await t.owner('GET', '/v1/owner/events');
    expect(stream.body.events.length).toBeGreaterThan(0);
    for (const event of stream.body.events) expect(thinEventSchema.safeParse(event).error).toBeUndefined();
    const last = stream.body.events.at(-1);
    const record = await t.inbox.store.eventStream.getEvent(last.id);
    const item = await t.inbox.store.items.get(created.body.id);
    const full = await fullEnvelope({ store: t.inbox.store, clock: t.clock }, record!, item!, 'http://127.0.0.1');
    expect(fullEventSchema.safeParse(full).error).toBeUndefined();
    expect(testEventSchema.shape.type.value).toBe('inbox.test');
  });
});

const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './inbox.js';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL! });

// @ts-expect-error the booking payload's field is serviceId, not service: the generated types are real
const wrong = () => client.POST('/v1/bookings', { body: { payload: { service: 'haircut', startTime: '2026-12-01T11:00:00Z' } } });
void wrong;

const created = await client.POST('/v1/bookings', {
  body: { payload: { serviceId: 'haircut', startTime: '2026-12-01T11:00:00Z' }, contact: { name: 'Typed Client' } },
  headers: { 'Idempotency-Key': 'typed-client-1' },
});
if (!created.data) throw new Error(JSON.stringify(created.error));
const token: string = created.data.accessToken;
const id: string = created.data.id;

const read = await client.GET('/v1/items/{id}', { params: { path: { id } }, headers: { 'x-access-token': token } });
if (!read.data) throw new Error(JSON.stringify(read.error));
const version: number = read.data.version;
// @ts-expect-error version is a number, not a string
const versionText: string = read.data.version;
void versionText;

const refused = await client.GET('/v1/items/{id}', { params: { path: { id } } });
const refusedCode: string | undefined = refused.error?.code;

const owner = await client.GET('/v1/owner/items', {
  params: { query: { type: 'booking' } },
  headers: { authorization: 'Bearer ' + process.env.OWNER_KEY },
});
if (!owner.data) throw new Error(JSON.stringify(owner.error));

console.log(JSON.stringify({
  createdStatus: created.response.status,
  location: created.response.headers.get('location'),
  id,
  state: read.data.state,
  version,
  refusedStatus: refused.response.status,
  refusedCode,
  ownerIds: owner.data.items.map((item) => item.id),
}));
`;

describe('a typed client generated from the document', () => {
  it('compiles, refuses a wrong field, and books, reads with the item token and lists as the owner', async () => {
    const folder = await typedClientFolder(doc, 'inbox.d.ts', CLIENT);
    try {
      expect(await folder.typecheck()).toBe('');
      const out = await folder.run({ BASE_URL: t.baseUrl, OWNER_KEY: t.ownerKey });
      expect(out).toEqual({
        createdStatus: 201,
        location: `/v1/items/${out.id}`,
        id: expect.any(String),
        state: 'requested',
        version: 1,
        refusedStatus: 401,
        refusedCode: 'unauthorized',
        ownerIds: expect.arrayContaining([out.id]),
      });
    } finally {
      folder.remove();
    }
  }, 120_000); // tsc compiles the generated client: seconds alone, much longer on a busy machine
});
