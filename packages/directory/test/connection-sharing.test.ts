/**
 * How a directory shares the URL's `max` connections on PostgreSQL (docs/storage.md): the answer
 * workers', the hour's statement's worker's and the server's own pool never add up to more than
 * `max`, and the statement's worker gets one only while the server keeps at least two. On SQLite
 * the statement's worker reads the file itself.
 */
import { describe, expect, it } from 'vitest';
import { shareConnections } from '../src/app.js';

const postgres = (max: number) => ({ engine: 'postgres' as const, url: `postgres://u@127.0.0.1:5432/d?max=${max}`, setting: 'DIRECTORY_DATABASE_URL', settings: { connectTimeoutMs: 5_000, statementTimeoutMs: 30_000 } });

describe('the connections of a directory on PostgreSQL', () => {
  it('gives the answer workers two each, the statement one, and the server the rest', () => {
    const shared = shareConnections(postgres(10), 1);
    expect(shared.workerConnections).toBe(2);
    expect(shared.statementKeys).toMatchObject({ engine: 'postgres', connections: 1 });
    expect(shared.main).toMatchObject({ engine: 'postgres', connections: 7 });
  });

  it('never opens more than max, and reads the statement on the server thread when max is short', () => {
    for (let max = 2; max <= 40; max++) {
      for (let workers = 0; workers <= Math.min(6, max - 2); workers++) {
        const { main, workerConnections, statementKeys } = shareConnections(postgres(max), workers);
        const mainConnections = main.engine === 'postgres' ? (main.connections ?? max) : 0;
        const statement = statementKeys ? 1 : 0;
        expect(mainConnections + workers * workerConnections + statement, `max=${max}, ${workers} workers`).toBe(max);
        expect(mainConnections, `max=${max}, ${workers} workers`).toBeGreaterThanOrEqual(2);
        expect(statementKeys === null, `max=${max}, ${workers} workers`).toBe(max - workers * workerConnections < 3);
      }
    }
    expect(shareConnections(postgres(2), 0).statementKeys).toBeNull();
    expect(shareConnections(postgres(3), 0)).toMatchObject({ statementKeys: { connections: 1 }, main: { connections: 2 } });
    expect(() => shareConnections(postgres(2), 1)).toThrow(/max=2 leaves fewer than 2 connections/);
  });

  it('lets the statement read the SQLite file itself', () => {
    const file = { engine: 'sqlite' as const, file: '/data/directory.sqlite' };
    expect(shareConnections(file, 1)).toEqual({ main: file, workerConnections: 1, statementKeys: file });
  });
});
