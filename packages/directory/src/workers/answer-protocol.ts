/** Messages between the server's thread and its answer workers. */
import type { AnswerPlan } from '../domain/search/answer-assembly.js';

export interface AnswerWorkerData {
  /** The directory's SQLite file (opened read-only). */
  file: string;
  /** The page renderer's version: a page of another is stale and not used. */
  pageVersion: string;
  /** SQLite page cache of the worker's connection, in KiB. */
  cacheKib: number;
}

export interface AnswerRequest {
  id: number;
  plan: AnswerPlan;
}

/** `bytes` null: a page was missing or stale, or the read failed (`error`); the server's thread answers instead. */
export interface AnswerResponse {
  id: number;
  bytes: Uint8Array | null;
  error?: string;
}
