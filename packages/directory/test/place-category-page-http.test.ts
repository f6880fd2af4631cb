/**
 * GET /c/{id} for a person and for a program (issue 38: the README links /c/amenity.cafe and a
 * browser opened raw JSON): a browser asking for HTML gets a page in its language, a program (JSON,
 * anything, or no Accept) gets the contract's JSON as before, both with Vary: Accept; `?format=json`
 * gives a browser the JSON. And every page's icon answers (/favicon.ico was a 404 on every page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDirectory, type TestDirectory } from './support/harness.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('a place category for a person and for a program', () => {
  let d: TestDirectory;
  beforeAll(async () => {
    d = await startDirectory();
  });
  afterAll(async () => {
    await d?.close();
  });

  const fetchText = async (path: string, accept?: string) => {
    const response = await fetch(`${d.baseUrl}${path}`, { headers: accept === undefined ? {} : { accept } });
    return { status: response.status, type: response.headers.get('content-type') ?? '', vary: response.headers.get('vary') ?? '', body: await response.text(), headers: response.headers };
  };

  it('answers a browser with a page in its language, with a title, a main landmark and its place in the tree', async () => {
    const en = await fetchText('/c/amenity.restaurant.italian', BROWSER_ACCEPT);
    expect(en.status).toBe(200);
    expect(en.type).toMatch(/^text\/html/);
    expect(en.vary).toMatch(/\bAccept\b/);
    expect(en.body).toContain('<html lang="en"');
    expect(en.body).toMatch(/<title>Italian Restaurant · /);
    expect(en.body).toContain('<main id="main"');
    expect(en.body).toContain('href="/categories/restaurant"');
    expect(en.body).toContain('href="/c/amenity.restaurant"');
    expect(en.body).toContain('href="/?category=amenity.restaurant.italian"');
    expect(en.body).toContain('OpenStreetMap iD tagging schema');
    const pt = await fetchText('/c/amenity.restaurant.italian?lang=pt', BROWSER_ACCEPT);
    expect(pt.body).toContain('<html lang="pt"');
    expect(pt.body).toMatch(/<h1>Restaurante italiano<\/h1>/);
    expect(pt.body).toContain('href="/?category=amenity.restaurant.italian&amp;lang=pt"');
    // Its children are listed with their own pages.
    const parent = await fetchText('/c/amenity.restaurant', BROWSER_ACCEPT);
    expect(parent.body).toContain('href="/c/amenity.restaurant.italian"');
  });

  it('answers a program with the contract\'s JSON, whatever it asks for but HTML, with Vary: Accept', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const answer = await fetchText('/c/amenity.cafe', accept);
      expect(answer.status, String(accept)).toBe(200);
      expect(answer.type).toMatch(/^application\/json/);
      expect(answer.vary).toMatch(/\bAccept\b/);
      expect(JSON.parse(answer.body)).toMatchObject({ id: 'amenity.cafe', label: 'Cafe', path: ['cafe', 'amenity.cafe'] });
    }
    const asked = await fetchText('/c/amenity.cafe?format=json', BROWSER_ACCEPT);
    expect(asked.type).toMatch(/^application\/json/);
    expect(JSON.parse(asked.body)).toEqual(JSON.parse((await fetchText('/c/amenity.cafe')).body));
  });

  it('says a category does not exist in the way each asked', async () => {
    const page = await fetchText('/c/amenity.nothing', BROWSER_ACCEPT);
    expect(page.status).toBe(404);
    expect(page.type).toMatch(/^text\/html/);
    const problem = await fetchText('/c/amenity.nothing');
    expect(problem.status).toBe(404);
    expect(problem.type).toMatch(/^application\/problem\+json/);
  });

  it('serves the icon every browser asks for, and the one the pages name', async () => {
    const ico = await fetch(`${d.baseUrl}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await ico.arrayBuffer());
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(bytes.readUInt32LE(6 + 8)).toBe(bytes.length - 22);
    const svg = await fetchText('/favicon.svg');
    expect(svg.type).toMatch(/^image\/svg\+xml/);
    expect(svg.body).toMatch(/^<svg /);
    const home = await fetchText('/', BROWSER_ACCEPT);
    expect(home.body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
  });
});
