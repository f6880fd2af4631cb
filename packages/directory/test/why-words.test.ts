/**
 * Every sentence the published rules can write in a listing's `why` (ranking/hourly-order.ts
 * whyPlaced, listings/why-now.ts) has Portuguese words on the pages (doors/web/views/why-words.ts):
 * a new sentence in the rules fails here before a Portuguese page shows it in English.
 */
import { describe, expect, it } from 'vitest';
import { whyPlaced, type PlacementFacts } from '../src/domain/ranking/hourly-order.js';
import { rulesByVersion } from '../src/domain/ranking/rules.js';
import { whyNow } from '../src/domain/listings/why-now.js';
import { whyInLanguage, whySentences } from '../src/doors/web/views/why-words.js';

const NOW = Date.parse('2026-11-23T10:15:00Z');

function allWhys(): string[] {
  const whys: string[] = [];
  for (const version of [6, 7]) {
    const rules = rulesByVersion(version)!;
    for (const member of [true, false])
      for (const answering of [true, false])
        for (const reach of [1, 2, 3] as const)
          for (const standing of [{ ranked: true, scoreInt: 4_512 }, { ranked: false, scoreInt: 0 }]) {
            const facts = { member, answering, reach, standing, shuffle: '0123456789abcdef' } as unknown as PlacementFacts;
            whys.push(whyPlaced(facts, 1852, rules));
            if (!member) continue;
            // A member whose answering changed within the hour, with and without a failing inbox.
            for (const failing of [false, true]) {
              const listing = { source: 'member' as const, lastPingAt: answering ? NOW - 3 * 86_400_000 : NOW - 60_000, doors: [{ type: 'inbox', url: 'https://x.example', level: 'bookable', status: failing ? 'failing' : 'live', kinds: ['ask'], src: 'declared' }] };
              whys.push(whyNow(listing as never, { rankPos: 3, facts }, { nowMs: NOW, answeringHours: 24, rulesVersion: version }));
            }
          }
  }
  return [...new Set(whys)];
}

describe('a listing\'s why in Portuguese', () => {
  it('has Portuguese words for every sentence the rules write, with numbers as Portuguese writes them', () => {
    const whys = allWhys();
    expect(whys.length).toBeGreaterThan(10);
    for (const why of whys) {
      const parts = whyInLanguage(why, 'pt');
      expect(parts.filter((p) => p.lang !== 'pt').map((p) => p.text), why).toEqual([]);
      expect(parts).toHaveLength(whySentences(why).length);
    }
    expect(whyInLanguage('Place 1852 in this hour\'s order (rules 6). Ranked by its reputation (score 0.4512).', 'pt').map((p) => p.text)).toEqual([
      'Lugar 1852 na ordem desta hora (regras 6).',
      'Ordenado pela sua reputação (pontuação 0,4512).',
    ]);
  });

  it('keeps a sentence it has no words for in English, marked as English', () => {
    expect(whyInLanguage('Place 2 in this hour\'s order (rules 6). Something new.', 'pt')).toEqual([
      { text: 'Lugar 2 na ordem desta hora (regras 6).', lang: 'pt' },
      { text: 'Something new.', lang: 'en' },
    ]);
    expect(whyInLanguage('Anything at all.', 'en')).toEqual([{ text: 'Anything at all.', lang: 'en' }]);
  });
});
