/**
 * The agentic score against hand-computed examples (the notes' worked example and others worked here
 * by hand from the published formula), and its rules document over HTTP and MCP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileById, type CapabilityId } from '../src/domain/checks/capabilities.js';
import { scoreProfile, type ScoredState } from '../src/domain/checks/score.js';
import { startDirectory, type TestDirectory } from './support/harness.js';
import { mcpCall } from './support/mcp-client.js';

function states(yes: CapabilityId[], partial: CapabilityId[] = []): Partial<Record<CapabilityId, ScoredState>> {
  const out: Partial<Record<CapabilityId, ScoredState>> = {};
  for (const c of yes) out[c] = 'yes';
  for (const c of partial) out[c] = 'partial';
  return out;
}

describe('agentic score arithmetic', () => {
  it('a hair salon (appointments): 51, C, fixes change +16, message +14, pay +14, policies +5', () => {
    // core {message, book, pay}: s = 2 → 40·2·20 = 1600; after {change, cancel}: s = 2 → 1800;
    // state {availability}: 1200; readable {catalogue, policies}: s = 2 → 600; find: 600; N = 5800,
    // possible = 95, D = 11400, floor((580000 + 5700) / 11400) = 51.
    const outcome = scoreProfile(profileById('appointments')!, states(['find', 'catalogue', 'availability', 'book', 'cancel']));
    expect(outcome.n).toBe(5800);
    expect(outcome.possible).toBe(95);
    expect(outcome.score).toBe(51);
    expect(outcome.grade).toBe('C');
    expect(outcome.fixes).toEqual([
      { capability: 'change', points: 16 },
      { capability: 'message', points: 14 },
      { capability: 'pay', points: 14 },
      { capability: 'policies', points: 5 },
    ]);
    // Displayed weight W/slots: core 40/3 = 13.3; points of book: 13.33·2·60·100/11400 = 14.0.
    expect(outcome.weights.book).toEqual({ weight: 13.3, points: 14 });
    expect(outcome.weights.message).toEqual({ weight: 13.3, points: 0 });
    expect(outcome.weights.feedback).toBeUndefined();
  });

  it('everything yes scores 100 (A) and nothing scores 0 (E)', () => {
    const general = profileById('general')!;
    expect(scoreProfile(general, states([...general.applicable])).score).toBe(100);
    expect(scoreProfile(general, {}).score).toBe(0);
    expect(scoreProfile(general, {}).grade).toBe('E');
  });

  it('an either-set is one slot with its best state (general: book, order or sign-up)', () => {
    // general: core slots {message, [book|order|signup], pay}; readable {catalogue, policies}; find.
    // order yes alone: core s = 2 → 40·2·20 = 1600; possible 40+10+5 = 55; D = 6600;
    // floor((160000 + 3300) / 6600) = 24 (D).
    const general = profileById('general')!;
    const orderOnly = scoreProfile(general, states(['order']));
    expect(orderOnly.n).toBe(1600);
    expect(orderOnly.possible).toBe(55);
    expect(orderOnly.score).toBe(24);
    expect(orderOnly.grade).toBe('D');
    expect(scoreProfile(general, states(['book', 'order', 'signup'])).score).toBe(24);
    // The slot already has a yes: no fix for book; message and pay are worth 24 points each (same group, vocabulary order).
    expect(orderOnly.fixes.slice(0, 2)).toEqual([
      { capability: 'message', points: 24 },
      { capability: 'pay', points: 24 },
    ]);
    expect(orderOnly.fixes.map((f) => f.capability)).not.toContain('book');
  });

  it('partial counts half (trades: message partial, book yes, negotiate yes)', () => {
    // trades: core {message, book, pay} = 1 + 2 + 0 halves → 40·3·20 = 2400; after {change, cancel, receipt} 0;
    // negotiate {negotiate} 5·2·60 = 600; possible 40+30+5 = 75; D = 9000; floor((300000 + 4500)/9000) = 33 (D).
    const outcome = scoreProfile(profileById('trades')!, states(['book', 'negotiate'], ['message']));
    expect(outcome.n).toBe(3000);
    expect(outcome.possible).toBe(75);
    expect(outcome.score).toBe(33);
    expect(outcome.grade).toBe('D');
    // message from partial to yes: +1 half → 2400+800 = 3800 → floor((380000+4500)/9000) = 42: +9.
    expect(outcome.fixes.find((f) => f.capability === 'message')).toEqual({ capability: 'message', points: 9 });
  });

  it('grades are A ≥ 80, B ≥ 60, C ≥ 40, D ≥ 20, E below', () => {
    const shop = profileById('shop')!;
    // shop: core {order, pay}, after {change, cancel, return, receipt}, state {availability, track}, readable {catalogue}, find.
    // possible 40+30+10+10+5 = 95, D = 11400. Everything but receipt: core 40·4·30 = 4800, after 30·6·15 = 2700,
    // state 10·4·30 = 1200, readable 10·2·60 = 1200, find 600: N = 10500 → floor((1050000+5700)/11400) = 92, A.
    const all = shop.applicable.filter((c) => c !== 'receipt');
    expect(scoreProfile(shop, states(all)).n).toBe(10500);
    expect(scoreProfile(shop, states(all)).score).toBe(92);
    expect(scoreProfile(shop, states(all)).grade).toBe('A');
    // Only order and pay: N = 4800 → floor((480000+5700)/11400) = 42, C; only order: 2400 → 21, D; find alone: 600 → 5, E.
    expect(scoreProfile(shop, states(['order', 'pay'])).grade).toBe('C');
    expect(scoreProfile(shop, states(['order', 'pay'])).score).toBe(42);
    expect(scoreProfile(shop, states(['order'])).score).toBe(21);
    expect(scoreProfile(shop, states(['order'])).grade).toBe('D');
    expect(scoreProfile(shop, states(['find'])).score).toBe(5);
    // B: everything but change, cancel, return, receipt: N = 4800+1200+1200+600 = 7800 → 68.9 → 68.
    const b = scoreProfile(shop, states(['order', 'pay', 'availability', 'track', 'catalogue', 'find']));
    expect([b.score, b.grade]).toEqual([68, 'B']);
  });
});

describe('GET /v1/score-rules', () => {
  let dir: TestDirectory;
  beforeAll(async () => {
    dir = await startDirectory();
  });
  afterAll(async () => {
    await dir.close();
  });

  it('serves the rules in force with every part the score reads, and any published version', async () => {
    const res = await dir.get('/v1/score-rules');
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeTruthy();
    const doc = res.body;
    expect(doc.version).toBe(1);
    expect(doc.status).toBe('in_force');
    expect(typeof doc.formula).toBe('string');
    expect(doc.groups.map((g: { id: string; weight: number }) => [g.id, g.weight])).toEqual([
      ['core', 40],
      ['after', 30],
      ['state', 10],
      ['negotiate', 5],
      ['readable', 10],
      ['find', 5],
      ['unscored', 0],
    ]);
    expect(doc.profiles.find((p: { id: string }) => p.id === 'appointments').groups).toContain('hair-beauty');
    expect(doc.capabilities).toHaveLength(20);
    expect(doc.grades).toEqual([
      { grade: 'A', min: 80 },
      { grade: 'B', min: 60 },
      { grade: 'C', min: 40 },
      { grade: 'D', min: 20 },
      { grade: 'E', min: 0 },
    ]);
    expect(Object.keys(doc.fixes.texts)).toHaveLength(20);
    expect(doc.changelog[0].version).toBe(1);
    const same = await dir.get('/v1/score-rules?version=1');
    expect(same.status).toBe(200);
    expect(same.body).toEqual(doc);
    const cached = await dir.get('/v1/score-rules', { 'if-none-match': res.headers.get('etag') as string });
    expect(cached.status).toBe(304);
  });

  it('answers 404 for a version never published and 400 for a version that is not a whole number', async () => {
    const missing = await dir.get('/v1/score-rules?version=2');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    expect(missing.body.code).toBe('not_found');
    expect((await dir.get('/v1/score-rules?version=0')).status).toBe(400);
    expect((await dir.get('/v1/score-rules?version=x')).status).toBe(400);
  });

  it('is a tool of the MCP server with the same document', async () => {
    const rest = await dir.get('/v1/score-rules');
    const result = await mcpCall(dir.baseUrl, 'get_score_rules', {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(rest.body);
  });
});
