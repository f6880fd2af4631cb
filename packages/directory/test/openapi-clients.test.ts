/**
 * The directory's /openapi.json as client authors read it (issue 12): Redocly's recommended rules
 * and Spectral's oas rules find nothing, every operation is public (security: []), reads declare
 * ETag and 304, the search its 503 with Retry-After; and a client generated from the document
 * (openapi-typescript and openapi-fetch) compiles, refuses a wrong field, and searches, reads one
 * business and revalidates it (304) against a live directory.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redoclyProblems, spectralProblems } from '../../../test-support/openapi-lint.js';
import { typedClientFolder } from '../../../test-support/typed-client.js';
import { DIRECTORY_OPERATIONS } from '../src/operations/index.js';
import { INSTANCE_SIGNED } from '../src/operations/context.js';
import { member } from './support/fixtures.js';
import { startDirectory, type TestDirectory } from './support/harness.js';

let t: TestDirectory;
let doc: any;
beforeAll(async () => {
  t = await startDirectory({ listings: [member('salon.example', { name: 'Salon Lumière', city: 'Lisboa', country: 'PT', categories: ['hair-beauty'] })] });
  doc = (await t.get('/openapi.json')).body;
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
  it('a licence, root tags, no credential anywhere, and 401 only on the calls an inbox signs', () => {
    expect(doc.info.license.identifier).toBe('Apache-2.0');
    expect(doc.security).toEqual([]);
    expect(doc.components.securitySchemes).toEqual({});
    const declared = new Set(doc.tags.map((tag: any) => tag.name));
    for (const op of DIRECTORY_OPERATIONS) {
      const documented = doc.paths[op.http.path][op.http.method.toLowerCase()];
      expect(documented.security, op.name).toEqual([]);
      expect(declared.has(documented.tags[0]), op.name).toBe(true);
      // Registration, pings and receipts are signed by the inbox (HTTP Message Signatures, issue 13): a bad signature is 401.
      if (INSTANCE_SIGNED.has(op.name)) expect(documented.responses['401'].description, op.name).toMatch(/unauthorized, replayed_signature/);
      else expect(documented.responses['401'], op.name).toBeUndefined();
      expect(documented.parameters?.some((p: any) => p.name === 'Idempotency-Key') ?? false, op.name).toBe(false);
      // Every read is served with an ETag and answers 304 (doors/rest/http-server.ts).
      if (op.kind === 'read') {
        expect(documented.responses['200'].headers.ETag, op.name).toBeDefined();
        expect(documented.responses['304'], op.name).toBeDefined();
      }
      for (const [status, response] of Object.entries<any>(documented.responses)) {
        if (Number(status) >= 400) expect(response.content['application/problem+json'].schema, `${op.name} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' });
      }
    }
  });

  it('the search: 400 for bad parameters, 410 for an expired cursor, 503 with Retry-After', () => {
    const search = doc.paths['/v1/businesses'].get.responses;
    expect(search['400'].description).toMatch(/bad_request/);
    expect(search['410'].description).toMatch(/cursor_expired/);
    expect(search['503'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(search['422']).toBeUndefined();
  });
});

const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './directory.js';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL! });

// @ts-expect-error limit is a number, not a string: the generated types are real
const wrong = () => client.GET('/v1/businesses', { params: { query: { q: 'salon', limit: 'ten' } } });
void wrong;

const search = await client.GET('/v1/businesses', { params: { query: { q: 'salon', limit: 5 } } });
if (!search.data) throw new Error(JSON.stringify(search.error));
const domains: string[] = search.data.businesses.map((listing) => listing.domain);

const one = await client.GET('/v1/businesses/{domain}', { params: { path: { domain: 'salon.example' } } });
if (!one.data) throw new Error(JSON.stringify(one.error));
const etag = one.response.headers.get('etag') ?? '';
const again = await client.GET('/v1/businesses/{domain}', { params: { path: { domain: 'salon.example' }, header: { 'If-None-Match': etag } } });

const missing = await client.GET('/v1/businesses/{domain}', { params: { path: { domain: 'nobody.example' } } });

console.log(JSON.stringify({
  domains,
  name: one.data.name,
  etag,
  revalidated: again.response.status,
  missingStatus: missing.response.status,
  missingCode: missing.error?.code,
}));
`;

describe('a typed client generated from the document', () => {
  it('compiles, refuses a wrong field, and searches, reads one business and revalidates it', async () => {
    const folder = await typedClientFolder(doc, 'directory.d.ts', CLIENT);
    try {
      expect(await folder.typecheck()).toBe('');
      const out = await folder.run({ BASE_URL: t.baseUrl });
      expect(out).toEqual({
        domains: ['salon.example'],
        name: 'Salon Lumière',
        etag: expect.stringMatching(/^"[^"]+"$/),
        revalidated: 304,
        missingStatus: 404,
        missingCode: 'not_found',
      });
    } finally {
      folder.remove();
    }
  }, 120_000); // tsc compiles the generated client: seconds alone, much longer on a busy machine
});
