/** Kept answers, pages and views stay within their number and size; the oldest kept go first. */
import { BoundedKeep, deepFreeze } from '@svc/shared';
import { describe, expect, it } from 'vitest';

const keep = () => new BoundedKeep<string>({ maxEntries: 3, maxSize: 10, sizeOf: (text) => text.length });

describe('BoundedKeep', () => {
  it('drops the oldest entries when the number would pass its bound', () => {
    const kept = keep();
    for (const key of ['a', 'b', 'c', 'd']) kept.set(key, key);
    expect([kept.get('a'), kept.get('b'), kept.get('d')]).toEqual([undefined, 'b', 'd']);
    expect(kept.count).toBe(3);
  });

  it('drops the oldest entries until a new one fits the size, and keeps none larger than the whole budget', () => {
    const kept = keep();
    kept.set('a', 'xxxx');
    kept.set('b', 'yyyy');
    expect(kept.set('c', 'zzzz')).toBe(true);
    expect(kept.get('a')).toBeUndefined();
    expect(kept.size).toBe(8);
    expect(kept.set('huge', 'x'.repeat(11))).toBe(false);
    expect(kept.get('huge')).toBeUndefined();
    expect(kept.size).toBe(8);
  });

  it('counts a replaced entry once, and forgets what is deleted or cleared', () => {
    const kept = keep();
    kept.set('a', 'xxxx');
    kept.set('a', 'yy');
    expect(kept.size).toBe(2);
    kept.set('b', 'zzz');
    kept.deleteWhere((value) => value === 'yy');
    expect([kept.get('a'), kept.size, kept.count]).toEqual([undefined, 3, 1]);
    kept.clear();
    expect([kept.size, kept.count]).toEqual([0, 0]);
  });
});

describe('deepFreeze', () => {
  it('freezes every level of a value', () => {
    const value = deepFreeze({ a: { b: [1, { c: 2 }] } });
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(() => {
      (value.a.b as unknown[]).push(3);
    }).toThrow();
  });
});
