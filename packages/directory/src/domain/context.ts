/** What every directory domain function gets: storage, the clock and the service's settings. */
import type { DirectoryStore } from '../store/store.js';
import type { CategoryResolution } from './registration/member-listing.js';
import type { InstanceKeys } from './signed/instance-keys.js';

export interface DirectorySettings {
  /** This directory's public origin (used in URLs it hands out). */
  baseUrl: string;
  /** Development: verify inboxes on 127.0.0.1 over http. Off by default. */
  allowLocalInboxes: boolean;
  manifestTimeoutMs: number;
  manifestMaxBytes: number;
}

export interface DirectoryContext {
  store: DirectoryStore;
  clock: { now(): number };
  settings: DirectorySettings;
  /** Manifest category terms → our groups, a place category, and tags. */
  resolveCategories: (terms: string[]) => CategoryResolution;
  /** Each inbox's public keys, from its manifest (signed calls and receipts are checked against them). */
  instanceKeys: InstanceKeys;
  /** Called after a receipt changed a business's tally, so its listing follows (listing-sync.ts). */
  receiptsChanged?: (domain: string) => void;
}
