/**
 * Leaderboards of done checks (directory spec §4 GET /leaderboard.json): businesses in a scope
 * (a category group, a country, a place in it, or everyone of the local and retail kind; software
 * and AI companies only on their own group's board), ordered by agentic score, then most recent
 * check, then domain. One order, one position: a named business shows its position among everyone
 * checked in the scope, so a check result's rank and its place on the board agree. Only an
 * agent-ready business whose site does not tell AI systems to keep away is named; the others are
 * counted (`unnamed`). This is not the directory's search order.
 */
import { scoreRulesUrl } from './score-rules.js';
import type { CheckBoardRow } from '../../store/store.js';

export const NAMED_PER_PAGE = 50;
export const MAX_PAGE = 20;

export interface BoardScope {
  category?: string | undefined;
  country?: string | undefined;
  place?: string | undefined;
}

export const BOARD_ORDER = 'agentic score, highest first; then the most recent check first; then domain, A to Z';
export const NOT_SEARCH_ORDER =
  'This is not the directory\'s search order: search follows the published ranking rules (GET /v1/ranking), which never read the agentic score.';

export function isNamed(row: Pick<CheckBoardRow, 'agentReady' | 'aiOptOut'>): boolean {
  return row.agentReady && !row.aiOptOut;
}

function compare(a: CheckBoardRow, b: CheckBoardRow): number {
  return b.score - a.score || b.checkedAt - a.checkedAt || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0);
}

function inScope(row: CheckBoardRow, scope: BoardScope): boolean {
  if (row.kind === null) return false;
  if (scope.category !== undefined ? row.category !== scope.category : row.kind !== 'local_and_retail') return false;
  if (scope.country !== undefined && row.country !== scope.country) return false;
  if (scope.place !== undefined && row.place !== scope.place) return false;
  return true;
}

/** Every done check in board order, with the scopes asked of it kept. */
export class Board {
  readonly rows: readonly CheckBoardRow[];
  readonly #scopes = new Map<string, CheckBoardRow[]>();

  constructor(rows: readonly CheckBoardRow[]) {
    this.rows = [...rows].sort(compare);
  }

  scoped(scope: BoardScope): CheckBoardRow[] {
    const key = `${scope.category ?? ''}|${scope.country ?? ''}|${scope.place ?? ''}`;
    let found = this.#scopes.get(key);
    if (!found) {
      found = this.rows.filter((row) => inScope(row, scope));
      this.#scopes.set(key, found);
    }
    return found;
  }

  /** A check's position in a scope (1-based) and how many share it; null when it is not in the scope. */
  position(domain: string, scope: BoardScope): { position: number; of: number } | null {
    const rows = this.scoped(scope);
    const index = rows.findIndex((r) => r.domain === domain);
    return index < 0 ? null : { position: index + 1, of: rows.length };
  }

  softwareCount(scope: BoardScope): number {
    if (scope.category !== undefined) return 0;
    return this.rows.filter((r) => r.kind === 'software_and_ai' && (scope.country === undefined || r.country === scope.country) && (scope.place === undefined || r.place === scope.place)).length;
  }
}

/** The leaderboard document of one page. */
export function leaderboardDocument(board: Board, scope: BoardScope, page: number, baseUrl: string, rulesVersion: number): Record<string, unknown> {
  const rows = board.scoped(scope);
  const named: { row: CheckBoardRow; position: number }[] = [];
  rows.forEach((row, index) => {
    if (isNamed(row)) named.push({ row, position: index + 1 });
  });
  const start = (page - 1) * NAMED_PER_PAGE;
  const onPage = named.slice(start, start + NAMED_PER_PAGE);
  const more = named.length > start + NAMED_PER_PAGE && page < MAX_PAGE;
  return {
    scope: {
      ...(scope.category !== undefined ? { category: scope.category } : { kind: 'local_and_retail' }),
      ...(scope.country !== undefined ? { country: scope.country } : {}),
      ...(scope.place !== undefined ? { place: scope.place } : {}),
    },
    rules: { version: rulesVersion, url: scoreRulesUrl(baseUrl, rulesVersion) },
    order: BOARD_ORDER,
    order_by: ['score', 'checked_at', 'domain'],
    not_search_order: NOT_SEARCH_ORDER,
    total: rows.length,
    unnamed: rows.length - named.length,
    ...(scope.category === undefined ? { software_and_ai: board.softwareCount(scope) } : {}),
    page,
    next_page: more ? page + 1 : null,
    named: onPage.map(({ row, position }) => ({
      position,
      domain: row.domain,
      name: row.summary.name ?? row.domain,
      score: row.score,
      grade: row.summary.grade,
      level: row.summary.level,
      ...(row.category ? { category: row.category } : {}),
      ...(row.country ? { country: row.country } : {}),
      ...(row.place ? { place: row.place } : {}),
      answers: row.summary.answers,
      checked_at: new Date(row.checkedAt).toISOString(),
      result_url: `${baseUrl}/b/${row.domain}.json`,
    })),
  };
}
