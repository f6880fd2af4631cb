/**
 * The search page for a person (issue 38), over HTTP: "where" takes a place's name (GeoNames, in any
 * of its names: Lisboa or Lisbon), a country's name, or latitude,longitude, and the results are the
 * API's for that point or country (the API keeps its strict `near`); suggestions as one types; the
 * bare home page starts in the country of the browser's language; each result says what it matched;
 * a Portuguese page words the data in Portuguese.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateListings } from '../src/demo/listing-generator.js';
import { taxonomyCategoryPicker } from '../src/demo/seed-directory.js';
import { gazetteer } from '../src/domain/places/gazetteer.js';
import { startDirectory, TestClock, type TestDirectory } from './support/harness.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('where, for a person', () => {
  let d: TestDirectory;

  beforeAll(async () => {
    const clock = new TestClock();
    d = await startDirectory({ clock, listings: generateListings({ count: 800, seed: 38, nowMs: clock.now(), placeCategoryOf: taxonomyCategoryPicker() }) });
    await d.directory.search.hour();
    gazetteer();
  }, 120_000);

  afterAll(async () => {
    await d?.close();
  });

  const page = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${d.baseUrl}${path}`, { headers: { accept: BROWSER_ACCEPT, ...headers } });
    return { status: response.status, vary: response.headers.get('vary') ?? '', body: await response.text(), link: response.headers.get('link') ?? '' };
  };
  const names = (body: string) => [...body.matchAll(/<h3><a href="\/businesses\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]!.replace(/&#39;/g, "'").replace(/&amp;/g, '&'));
  const decode = (text: string) => text.replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/&quot;/g, '"');

  it('finds a town by its name and shows what the API answers for its point', async () => {
    const cafes = (await d.get('/v1/businesses?q=cafe&limit=100')).body.businesses as { city?: string; country?: string; name: string }[];
    const known = cafes.find((b) => b.city && gazetteer().resolve(`${b.city}, ${b.country}`)?.kind === 'place')!;
    expect(known).toBeDefined();
    const where = gazetteer().resolve(`${known.city}, ${known.country}`);
    if (where?.kind !== 'place') throw new Error('no place');
    const near = `${Number(where.match.place.lat.toFixed(5))},${Number(where.match.place.lng.toFixed(5))}`;
    const shown = await page(`/?q=cafe&near=${encodeURIComponent(`${known.city}, ${known.country}`)}`);
    expect(shown.status).toBe(200);
    const json = (await d.get(`/v1/businesses?q=cafe&near=${near}&limit=20`)).body;
    expect(names(shown.body)).toEqual(json.businesses.map((b: { name: string }) => b.name));
    expect(names(shown.body)).toContain(known.name);
    expect(decode(shown.body)).toContain(`Near ${where.match.name}, `);
    // The page's JSON is the API's search at that point.
    expect(shown.link).toContain(`/v1/businesses?q=cafe&near=${encodeURIComponent(near)}`);
    // The API itself keeps the contract's strict near.
    expect((await d.get('/v1/businesses?near=Berlin')).status).toBe(400);
  });

  it('takes a place in the name the page\'s language gives it, a country by its name, and refuses a name it does not know with places to try', async () => {
    const pt = await page('/?near=Lisboa&lang=pt');
    expect(pt.status).toBe(200);
    expect(decode(pt.body)).toContain('Perto de Lisboa, Portugal, até 10 km');
    const en = await page('/?near=Lisbon');
    expect(decode(en.body)).toContain('Near Lisbon, Portugal, within 10 km');
    expect(names(en.body)).toEqual(names(pt.body));
    const country = await page('/?near=Alemanha&lang=pt');
    expect(decode(country.body)).toContain('<h2 id="results-title">Em Alemanha</h2>');
    expect(names(country.body)).toEqual(((await d.get('/v1/businesses?country=DE&limit=20')).body.businesses as { name: string }[]).map((b) => b.name));
    const unknown = await page('/?near=Qwxzyville&q=cafe');
    expect(unknown.status).toBe(400);
    expect(decode(unknown.body)).toContain('No place called “Qwxzyville” was found.');
    const misspelt = await page('/?near=Lisbonx');
    expect(misspelt.status).toBe(400);
    expect(decode(misspelt.body)).toMatch(/Places with a name like it: <a href="\/\?near=Lisbon%2C\+Portugal">Lisbon, Portugal<\/a>/);
  });

  it('suggests places as one types, in the page\'s language', async () => {
    const en = (await d.get('/places?q=lisb')).body.places as { label: string; near: string }[];
    expect(en[0]).toEqual({ label: 'Lisbon, Portugal', near: '38.71667,-9.13333', population: expect.any(Number) });
    const pt = (await d.get('/places?q=Lisboa&lang=pt')).body.places as { label: string }[];
    expect(pt[0]!.label).toBe('Lisboa, Portugal');
    // Towns a person cannot tell apart by their words are suggested once.
    const labels = en.map((p) => p.label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(((await d.get('/places?q=Germany')).body.places as { label: string }[])[0]!.label).toBe('Germany');
    expect((await d.get('/places?q=x')).body.places).toEqual([]);
  });

  it('opens the bare home page in the country of the browser\'s language, and everywhere when asked', async () => {
    const home = await page('/', { 'accept-language': 'pt-PT,pt;q=0.9,en;q=0.8' });
    expect(home.vary).toMatch(/Accept-Language/);
    expect(decode(home.body)).toContain('<h2 id="results-title">In Portugal</h2>');
    expect(names(home.body)).toEqual(((await d.get('/v1/businesses?country=PT&limit=20')).body.businesses as { name: string }[]).map((b) => b.name));
    expect(home.body).toContain('value="Portugal"');
    const everywhere = await page('/?near=', { 'accept-language': 'pt-PT' });
    expect(names(everywhere.body)).toEqual(((await d.get('/v1/businesses?limit=20')).body.businesses as { name: string }[]).map((b) => b.name));
    const world = await page('/');
    expect(world.body).not.toContain('id="results-title">In ');
  });

  it('says what each result matched, and words the data in Portuguese on a Portuguese page', async () => {
    const en = await page('/?q=cafe');
    const matched = [...en.body.matchAll(/<p class="matched small"><strong>Matched:<\/strong> ([^<]+)<\/p>/g)].map((m) => decode(m[1]!));
    expect(matched.length).toBe(names(en.body).length);
    for (const phrase of matched) expect(phrase).toMatch(/^“cafe” (in its name|through its category .+|in its tag .+|in its service .+|in its town|in its description)$/);
    const pt = await page('/?q=cafe&lang=pt');
    const body = decode(pt.body);
    expect(body).not.toMatch(/Place \d+ in this hour/);
    expect(body).toMatch(/Lugar \d+ na ordem desta hora \(regras \d\)\./);
    expect(body).not.toMatch(/through its category|in its name/);
    expect(body).toMatch(/«cafe» (no nome|pela categoria)/);
  });
});
