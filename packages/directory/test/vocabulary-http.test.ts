/**
 * The directory's published vocabularies and documents over real HTTP (directory spec §2
 * "Categories and attributes", §4 GET /v1/categories, GET /c/{id}, GET /v1/attributes,
 * GET /v1/ranking, §9 versioning), health, and the OpenAPI document.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECTORY_VERSION } from '../src/app.js';
import { DIRECTORY_OPERATIONS } from '../src/operations/index.js';
import { TestClock, startDirectory, type ApiResponse, type TestDirectory } from './support/harness.js';

const SLUG = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

function expectProblem(r: ApiResponse, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, code }));
}

const clock = new TestClock();
let t: TestDirectory;
beforeAll(async () => {
  t = await startDirectory({ clock });
});
afterAll(() => t.close());

describe('GET /v1/categories', () => {
  it('lists the groups with a slug, labels in several languages and a kind; software-ai alone is software_and_ai', async () => {
    const r = await t.get('/v1/categories');
    expect(r.status).toBe(200);
    expect(Number.isInteger(r.body.version) && r.body.version >= 1).toBe(true);
    expect(r.body).not.toHaveProperty('place_categories');
    expect(r.body).not.toHaveProperty('taxonomy');
    const slugs = r.body.categories.map((c: any) => c.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(slugs).toEqual(expect.arrayContaining(['restaurant', 'cafe', 'hair-beauty', 'software-ai']));
    for (const c of r.body.categories) {
      expect(c.slug).toMatch(SLUG);
      expect(Object.keys(c).sort()).toEqual(['kind', 'labels', 'slug']);
      expect(c.labels.en).toEqual(expect.any(String));
      expect(c.labels.pt).toEqual(expect.any(String));
      expect(c.kind).toBe(c.slug === 'software-ai' ? 'software_and_ai' : 'local_and_retail');
    }
    expect(r.body.categories.find((c: any) => c.slug === 'cafe').labels).toMatchObject({ en: 'Cafés', pt: 'Cafés' });
  });

  it('adds the place categories of a group and the taxonomy they come from with ?group', async () => {
    const r = await t.get('/v1/categories?group=cafe');
    expect(r.status).toBe(200);
    expect(r.body.categories.length).toBeGreaterThan(20);
    const ids = r.body.place_categories.map((p: any) => p.id);
    expect(ids).toEqual(expect.arrayContaining(['amenity.cafe', 'amenity.cafe.coffee_shop']));
    for (const p of r.body.place_categories) {
      expect(Object.keys(p).sort()).toEqual(['group', 'id', 'label', 'parent']);
      expect(p.group).toBe('cafe');
      expect(p.parent === null || ids.includes(p.parent)).toBe(true);
    }
    expect(r.body.place_categories.find((p: any) => p.id === 'amenity.cafe.coffee_shop').parent).toBe('amenity.cafe');
    expect(r.body.taxonomy).toEqual({
      name: expect.any(String),
      release: expect.any(String),
      licence: expect.any(String),
      url: expect.stringMatching(/^https:\/\//),
      group: 'cafe',
    });
  });

  it('gives the software-ai group its own five categories, without a taxonomy', async () => {
    const r = await t.get('/v1/categories?group=software-ai');
    expect(r.status).toBe(200);
    expect(r.body.place_categories.map((p: any) => p.id).sort()).toEqual([
      'software_and_ai',
      'software_and_ai.ai_agents',
      'software_and_ai.developer_tools',
      'software_and_ai.it_infrastructure',
      'software_and_ai.saas',
    ]);
    expect(r.body).not.toHaveProperty('taxonomy');
  });

  it('answers 404 to an unknown group and 400 to one that is not a slug-sized string', async () => {
    expectProblem(await t.get('/v1/categories?group=nope'), 404, 'not_found');
    expectProblem(await t.get('/v1/categories?group=Cafe'), 404, 'not_found');
    expectProblem(await t.get(`/v1/categories?group=${'x'.repeat(61)}`), 400, 'bad_request');
  });

  it('is cacheable and answers 304 to its ETag', async () => {
    const r = await t.get('/v1/categories');
    expect(r.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
    expect((await t.get('/v1/categories', { 'if-none-match': r.headers.get('etag')! })).status).toBe(304);
  });
});

describe('GET /c/{id}', () => {
  it('gives a place category with its path, group and taxonomy', async () => {
    const r = await t.get('/c/amenity.cafe.coffee_shop');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: 'amenity.cafe.coffee_shop',
      label: 'Coffeehouse',
      parent: 'amenity.cafe',
      path: ['cafe', 'amenity.cafe', 'amenity.cafe.coffee_shop'],
      group: 'cafe',
      taxonomy: { name: expect.any(String), release: expect.any(String), licence: expect.any(String), url: expect.any(String) },
    });
    expect(r.body).not.toHaveProperty('regulated');
    const top = await t.get('/c/amenity.cafe');
    expect(top.body).toMatchObject({ parent: null, path: ['cafe', 'amenity.cafe'] });
  });

  it('gives the software-ai categories without a taxonomy', async () => {
    for (const id of ['software_and_ai', 'software_and_ai.saas']) {
      const r = await t.get(`/c/${id}`);
      expect(r.status).toBe(200);
      expect(r.body.group).toBe('software-ai');
      expect(r.body).not.toHaveProperty('taxonomy');
    }
    expect((await t.get('/c/software_and_ai.saas')).body.path).toEqual(['software-ai', 'software_and_ai', 'software_and_ai.saas']);
  });

  it('says why businesses that are not members are not listed in a regulated category', async () => {
    const r = await t.get('/c/amenity.doctors');
    expect(r.status).toBe(200);
    expect(r.body.group).toBe('health');
    expect(r.body.regulated).toEqual(expect.stringMatching(/member/));
  });

  it('answers 404 to an unknown id', async () => {
    expectProblem(await t.get('/c/nope.nothing'), 404, 'not_found');
    expectProblem(await t.get('/c/cafe'), 404, 'not_found');
  });
});

describe('GET /v1/attributes', () => {
  it('lists every key with group, type, labels and filterable; a key that needs a proof is not filterable', async () => {
    const r = await t.get('/v1/attributes');
    expect(r.status).toBe(200);
    expect(Number.isInteger(r.body.version) && r.body.version >= 1).toBe(true);
    const keys = new Map<string, any>(r.body.keys.map((k: any) => [k.key, k]));
    expect(keys.size).toBe(r.body.keys.length);
    for (const k of r.body.keys) {
      expect(k).toEqual(
        expect.objectContaining({ key: expect.any(String), group: expect.any(String), type: expect.stringMatching(/^(bool|enum)$/), labels: expect.any(Object), filterable: expect.any(Boolean) }),
      );
      expect(k.labels.en).toEqual(expect.any(String));
      if (k.type === 'enum') expect(k.values.length).toBeGreaterThan(0);
    }
    expect(keys.get('wifi')).toMatchObject({ type: 'bool', filterable: true });
    expect(keys.get('halal')).toMatchObject({ filterable: false });
    expect(keys.get('cert')).toMatchObject({ type: 'enum', filterable: false, values: expect.arrayContaining(['b_corp']) });
    expect(r.body.payments).toEqual({ methods: expect.arrayContaining(['card', 'mb_way']), wallets: expect.arrayContaining(['paypal']), agent: expect.arrayContaining(['x402']) });
  });

  it('every filterable key is taken by the search, and a key that is not filterable is refused', async () => {
    const r = await t.get('/v1/attributes');
    for (const k of r.body.keys) {
      const value = k.type === 'enum' ? `${k.key}=${k.values[0]}` : k.key;
      const search = await t.get(`/v1/businesses?attributes=${encodeURIComponent(value)}`);
      expect(search.status, value).toBe(k.filterable ? 200 : 400);
    }
  });
});

describe('GET /v1/ranking', () => {
  it('serves the version in force (6 before 2026-12-07) with every number, and the announced next version', async () => {
    clock.set('2026-11-23T10:15:00Z');
    const r = await t.get('/v1/ranking');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      version: 6,
      status: 'in_force',
      order: { members_first: true, answering_hours: 24, ranked_from: 0.4, near: { radius_km_default: 10, radius_km_max: 1000 } },
      next: { version: 7, effective_at: '2026-12-07T00:00:00Z', url: 'http://127.0.0.1/v1/ranking?version=7' },
    });
    expect(r.body.order.nearest).toBeNull();
    expect(r.body.changelog.map((c: any) => c.version)).toEqual([6, 7]);
    expect(r.headers.get('cache-control')).toMatch(/max-age=\d+/);
  });

  it('serves the announced version 7 with every number it changes', async () => {
    const r = await t.get('/v1/ranking?version=7');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      version: 7,
      status: 'announced',
      published_at: '2026-11-20T00:00:00Z',
      effective_at: '2026-12-07T00:00:00Z',
      order: { members_first: false, answering_hours: 24, ranked_from: 0.4, ranked_from_int: 4000, near: { radius_km_default: 10, radius_km_max: 1000 } },
      score: { z: expect.any(Number), ranked_from: 0.4 },
    });
    expect(r.body.order.nearest).toEqual(expect.stringContaining('order=nearest'));
    expect(r.body.order.category).toMatch(/category_unresolved/);
    expect(r.body.order.words.length).toBeGreaterThan(0);
    expect(r.body.next).toBeNull();
  });

  it('answers 404 to a version never published, and 400 to one that is not a whole number >= 1', async () => {
    expectProblem(await t.get('/v1/ranking?version=5'), 404, 'not_found');
    expectProblem(await t.get('/v1/ranking?version=8'), 404, 'not_found');
    expectProblem(await t.get('/v1/ranking?version=0'), 400, 'bad_request');
    expectProblem(await t.get('/v1/ranking?version=six'), 400, 'bad_request');
    expectProblem(await t.get('/v1/ranking?version=6.5'), 400, 'bad_request');
  });

  it('does not show version 7 before it was published', async () => {
    clock.set('2026-11-01T10:00:00Z');
    try {
      expectProblem(await t.get('/v1/ranking?version=7'), 404, 'not_found');
      const current = await t.get('/v1/ranking');
      expect(current.body).toMatchObject({ version: 6, status: 'in_force', next: null });
      expect(current.body.changelog.map((c: any) => c.version)).toEqual([6]);
    } finally {
      clock.set('2026-11-23T10:15:00Z');
    }
  });

  it('puts version 7 in force on 2026-12-07 and keeps version 6 readable as retired', async () => {
    clock.set('2026-12-07T00:00:00Z');
    try {
      const r = await t.get('/v1/ranking');
      expect(r.body).toMatchObject({ version: 7, status: 'in_force', next: null, order: { members_first: false } });
      const old = await t.get('/v1/ranking?version=6');
      expect(old.status).toBe(200);
      expect(old.body).toMatchObject({ version: 6, status: 'retired', order: { members_first: true } });
    } finally {
      clock.set('2026-11-23T10:15:00Z');
    }
  });
});

describe('health and the OpenAPI document', () => {
  it('answers /healthz', async () => {
    const r = await t.get('/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, version: DIRECTORY_VERSION });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('serves /openapi.json as OpenAPI 3.1 that validates, with every operation', async () => {
    const r = await t.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\.1\./);
    expect(r.body.info.version).toBe(DIRECTORY_VERSION);
    await expect(SwaggerParser.validate(structuredClone(r.body))).resolves.toBeTruthy();
    const found = new Map<string, string>();
    for (const [p, item] of Object.entries<any>(r.body.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) found.set(operation.operationId, `${method.toUpperCase()} ${p}`);
    }
    for (const op of DIRECTORY_OPERATIONS) expect(found.get(op.name), op.name).toBe(`${op.http.method} ${op.http.path}`);
    const search = r.body.paths['/v1/businesses'].get;
    const names = search.parameters.map((p: any) => p.name);
    for (const name of ['q', 'near', 'radius_km', 'category', 'item_type', 'language', 'open_now', 'limit', 'cursor', 'attributes', 'country', 'price_band', 'accepts', 'requestable', 'door_type', 'level', 'has_inbox', 'source', 'order']) {
      expect(names).toContain(name);
    }
    expect(Object.keys(search.responses)).toEqual(expect.arrayContaining(['200', '400', '410']));
  });

  it('answers an unknown path with a 404 problem and a wrong method with 405', async () => {
    expectProblem(await t.get('/v1/nothing-here'), 404, 'not_found');
    const r = await t.request('DELETE', '/v1/categories');
    expectProblem(r, 405, 'method_not_allowed');
  });
});
