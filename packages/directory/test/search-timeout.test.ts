import { afterEach, describe, expect, it } from 'vitest';
import { listing } from './support/fixtures.js';
import { startDirectory, type TestDirectory } from './support/harness.js';

describe('a search that runs out of time', () => {
  let t: TestDirectory;
  afterEach(() => t.close());

  it('answers 503 search_timeout with Retry-After, and nothing is cached', async () => {
    t = await startDirectory({ searchDeadlineMs: -1, cacheAnswers: true, listings: [listing('one.example', { name: 'Padaria Um' })] });
    await t.directory.search.hour();
    const answer = await t.get('/v1/businesses?q=padaria');
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.headers.get('retry-after')).toBe('60');
    expect(answer.body).toMatchObject({ status: 503, code: 'search_timeout' });
  });

  it('answers normally with time to spare', async () => {
    t = await startDirectory({ searchDeadlineMs: 10_000, listings: [listing('one.example', { name: 'Padaria Um' })] });
    const answer = await t.get('/v1/businesses?q=padaria');
    expect(answer.status).toBe(200);
    expect(answer.body.businesses.map((b: { domain: string }) => b.domain)).toEqual(['one.example']);
  });
});
