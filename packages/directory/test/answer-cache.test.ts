import { afterEach, describe, expect, it } from 'vitest';
import { AnswerCache } from '../src/domain/search/answer-cache.js';
import { listing, member } from './support/fixtures.js';
import { startDirectory, type TestDirectory } from './support/harness.js';

describe('the answer cache', () => {
  it('keeps an answer until its time runs out, least recently used first', () => {
    const cache = new AnswerCache<string>(true);
    cache.set('a', 'first', 0, 1_000);
    expect(cache.get('a', 999)).toBe('first');
    expect(cache.get('a', 1_000)).toBeUndefined();
    const off = new AnswerCache<string>(false);
    off.set('a', 'first', 0, 1_000);
    expect(off.get('a', 1)).toBeUndefined();
  });

  describe('over HTTP', () => {
    let t: TestDirectory;
    afterEach(() => t.close());

    it('answers a repeated search from the cache for up to three minutes (one with open_now)', async () => {
      t = await startDirectory({ cacheAnswers: true, listings: [member('one.example', { name: 'Padaria Um' }), listing('two.example', { name: 'Padaria Dois' })] });
      const first = await t.get('/v1/businesses?q=padaria');
      expect(first.status).toBe(200);
      // A ping changes what a fresh answer would say; a cached one still says what it said.
      expect(first.body.businesses.map((b: any) => b.domain)).toEqual(['one.example', 'two.example']);
      const pingedAt = t.clock.now() + 5_000;
      await t.directory.store.listings.recordPing('one.example', pingedAt, null);
      const lastPing = (body: any) => body.businesses.find((b: any) => b.domain === 'one.example').last_ping_at;
      t.clock.advance(179_000);
      const again = await t.get('/v1/businesses?q=padaria');
      expect(again.body).toEqual(first.body);
      expect(lastPing(again.body)).not.toBe(new Date(pingedAt).toISOString());
      t.clock.advance(2_000);
      const later = await t.get('/v1/businesses?q=padaria');
      expect(lastPing(later.body)).toBe(new Date(pingedAt).toISOString());

      // With open_now the answer is at most a minute old.
      const open = await t.get('/v1/businesses?q=padaria&open_now=true');
      await t.directory.store.listings.recordPing('one.example', pingedAt + 10_000, null);
      t.clock.advance(59_000);
      expect((await t.get('/v1/businesses?q=padaria&open_now=true')).body).toEqual(open.body);
      t.clock.advance(2_000);
      const openLater = await t.get('/v1/businesses?q=padaria&open_now=true');
      if (openLater.body.businesses.length > 0) expect(openLater.body).not.toEqual(open.body);
    });

    it('answers afresh once a listing changed: a change to what search reads does not wait for the three minutes', async () => {
      t = await startDirectory({ cacheAnswers: true, listings: [member('one.example', { name: 'Padaria Um' }), listing('two.example', { name: 'Padaria Dois' })] });
      const first = await t.get('/v1/businesses?q=padaria');
      expect(first.body.businesses.map((b: any) => b.name)).toEqual(['Padaria Um', 'Padaria Dois']);
      const { seq: _seq, ...stored } = (await t.directory.store.listings.byDomain('two.example'))!;
      const rename = (name: string) => t.directory.store.listings.upsert({ ...stored, name, updatedAt: t.clock.now() });
      await rename('Padaria Dois e Meio');
      t.clock.advance(1_000);
      const after = await t.get('/v1/businesses?q=padaria');
      expect(after.body.businesses.map((b: any) => b.name)).toEqual(['Padaria Um', 'Padaria Dois e Meio']);
      // The web page of the same search, replayed in front of the framework while it holds, follows too.
      const page = async () => String((await t.get('/?q=padaria')).body);
      expect(await page()).toContain('Padaria Dois e Meio');
      expect(await page()).toContain('Padaria Dois e Meio');
      // A write of this process shows at once, on either engine (another process's: docs/directory.md "Search nodes").
      await rename('Padaria Dois e Tres');
      expect(await page()).toContain('Padaria Dois e Tres');
      expect((await t.get('/v1/businesses?q=padaria')).body.businesses.map((b: any) => b.name)).toEqual(['Padaria Um', 'Padaria Dois e Tres']);
    });
  });
});
