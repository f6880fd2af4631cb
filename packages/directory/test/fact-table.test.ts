/**
 * The hour's facts as columns (issue 40, FactTable): sorted, amended and read back, they give what
 * the rules' comparison of RankFacts objects gives (compareFor, the published rules' definition),
 * under every published version, ties in every fact included.
 */
import { describe, expect, it } from 'vitest';
import { FactTable, amendedTable, sortedInSteps, sortedTable } from '../src/domain/ranking/fact-table.js';
import { DayShuffles, HourRanks, NO_STANDING, compareFor, rankFacts, rankShuffle, shuffleDay, type RankFacts, type RankInputs } from '../src/domain/ranking/hourly-order.js';
import { PUBLISHED_RULES } from '../src/domain/ranking/rules.js';

const HOUR = Date.parse('2026-12-08T13:00:00Z');

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** Facts with many ties: few levels and scores, shuffles drawn from a handful (so ids decide), members and not. */
function someFacts(count: number, seed: number): RankFacts[] {
  const rand = random(seed);
  const shuffles = Array.from({ length: 6 }, (_, i) => rankShuffle(HOUR, `key-${seed}-${i}`));
  shuffles.push('0000000000000000', 'ffffffffffffffff', '00000000ffffffff', 'ffffffff00000000');
  return Array.from({ length: count }, (_, i) => {
    const ranked = rand() < 0.4;
    const reach = (1 + Math.floor(rand() * 3)) as 1 | 2 | 3;
    return {
      seq: i * 7 + 3,
      member: rand() < 0.5,
      answering: reach === 1,
      reach,
      level: Math.floor(rand() * 8),
      standing: ranked ? { ranked, scoreInt: Math.floor(rand() * 4) * 1000 } : NO_STANDING,
      shuffle: shuffles[Math.floor(rand() * shuffles.length)] as string,
      // ids of several lengths, some sharing a prefix, one past latin1
      id: i === 5 ? `01KΩ${i}` : `01K${Math.floor(rand() * 50).toString(36)}${i % 3 === 0 ? '' : i.toString(36)}`,
    };
  });
}

function tableOf(facts: readonly RankFacts[]): FactTable {
  const table = new FactTable(4);
  for (const f of facts) table.push(f);
  return table;
}

const rows = (table: FactTable): RankFacts[] => Array.from({ length: table.length }, (_, i) => table.at(i));

describe('the hour facts as columns', () => {
  for (const rules of PUBLISHED_RULES) {
    it(`sort as the rules of version ${rules.version} compare them, at once and in steps`, () => {
      for (const seed of [1, 2, 3]) {
        const facts = someFacts(3_000, seed);
        const expected = [...facts].sort(compareFor(rules));
        const table = tableOf(facts);
        expect(rows(table)).toEqual(facts);
        const sorted = sortedTable(table, rules);
        expect(rows(sorted)).toEqual(expected);
        expect([...sorted.seqs()]).toEqual(expected.map((f) => f.seq));
        const steps = sortedInSteps(table, rules);
        let pauses = 0;
        let step = steps.next();
        for (; !step.done; step = steps.next()) pauses++;
        expect(rows(step.value)).toEqual(expected);
        expect(pauses).toBeGreaterThan(0);
      }
    });

    it(`amended with listings placed again land where sorting everything would put them (version ${rules.version})`, () => {
      const facts = someFacts(2_000, 9);
      const sorted = sortedTable(tableOf(facts), rules);
      const rand = random(77);
      const again = new Map<number, RankFacts | null>();
      const fresh = someFacts(400, 10);
      for (let k = 0; k < 300; k++) {
        const f = facts[Math.floor(rand() * facts.length)] as RankFacts;
        // moved (new facts), gone (null), or added (a seq not in the order)
        if (k % 3 === 0) again.set(f.seq, null);
        else again.set(f.seq, { ...(fresh[k] as RankFacts), seq: f.seq, id: f.id, shuffle: f.shuffle });
      }
      for (let k = 0; k < 20; k++) again.set(1_000_000 + k, { ...(fresh[300 + k] as RankFacts), seq: 1_000_000 + k });
      const expected = [...facts.filter((f) => !again.has(f.seq)), ...[...again.values()].filter((f): f is RankFacts => f !== null)].sort(compareFor(rules));
      expect(rows(amendedTable(sorted, again, rules))).toEqual(expected);
    });
  }

  it('makes the tables an answer reads as the objects do', () => {
    const rules = PUBLISHED_RULES.at(-1)!;
    const day = shuffleDay(HOUR);
    const inputs: RankInputs[] = Array.from({ length: 500 }, (_, i) => ({ seq: i * 2, id: `01KINPUT${i}`, source: i % 3 === 0 ? 'member' : 'found', lastPingAt: i % 5 === 0 ? HOUR - 3_600_000 : null, level: i % 8, agentDoor: i % 4 === 0 }));
    const standings = new Map(inputs.filter((_, i) => i % 6 === 0).map((l) => [l.seq, { ranked: true, scoreInt: l.seq * 3 }]));
    const objects = inputs.map((l) => rankFacts(l, HOUR, rules, standings.get(l.seq) ?? NO_STANDING));
    const known = DayShuffles.build(day, objects.filter((_, i) => i % 2 === 0));
    const table = new FactTable();
    for (const l of inputs) table.pushInputs(l, HOUR, rules, standings.get(l.seq) ?? NO_STANDING, l.seq % 3 === 0 ? known : undefined);
    expect(rows(table)).toEqual(objects);
    const shuffles = DayShuffles.build(day, table);
    const ranks = HourRanks.build(HOUR, rules, table, standings);
    const fromObjects = HourRanks.build(HOUR, rules, objects, standings);
    for (const f of objects) {
      expect(shuffles.get(f.seq, f.id)).toBe(f.shuffle);
      expect(ranks.placement(f.seq, f.shuffle)).toEqual(fromObjects.placement(f.seq, f.shuffle));
    }
  });

  it('refuses facts it cannot hold rather than keep them wrong', () => {
    const [f] = someFacts(1, 4) as [RankFacts];
    expect(() => new FactTable().push({ ...f, level: 8 })).toThrow(RangeError);
    expect(() => new FactTable().push({ ...f, standing: { ranked: true, scoreInt: 70_000 } })).toThrow(RangeError);
  });
});

