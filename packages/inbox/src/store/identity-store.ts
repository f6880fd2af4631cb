/** What the inbox keeps about who a customer is (docs/identity.md), in domain terms. */
import type { PersonStanding } from '../domain/identity/network-status.js';

export interface AgentRecord {
  jkt: string;
  platform: string | null;
  publicJwk: Record<string, unknown>;
  firstSeen: number;
  lastSeen: number;
}

export interface ItemAgentRecord {
  itemId: string;
  jkt: string;
  platform: string | null;
  signedAt: number;
}

/** What became of a signature of a change: first use, the same call retried, or a replay. */
export type SignatureUse = 'new' | 'retry' | 'replayed';

export interface CustomerCodeRecord {
  id: string;
  itemId: string;
  addressHash: string;
  codeHash: string;
  sentTo: string;
  createdAt: number;
  expiresAt: number;
  attempts: number;
  usedAt: number | null;
}

export interface IdentityStore {
  /** Records that an agent key was seen now (first seen kept). */
  seeAgent(agent: { jkt: string; platform: string | null; publicJwk: Record<string, unknown> }, nowMs: number): Promise<void>;
  getAgent(jkt: string): Promise<AgentRecord | null>;
  /** The agent that signed an item's creation (first one kept). */
  setItemAgent(record: ItemAgentRecord): Promise<void>;
  itemAgent(itemId: string): Promise<ItemAgentRecord | null>;
  /**
   * Records a change's signature. The same signature again is a retry only from the same agent with
   * the same (present) idempotency key; anything else is a replay. Atomic within the caller's transaction.
   */
  useSignature(use: { signatureId: string; jkt: string; idempotencyKey: string | null; keepUntilMs: number }, nowMs: number): Promise<SignatureUse>;
  pruneSignatures(nowMs: number): Promise<number>;

  addCode(code: CustomerCodeRecord): Promise<void>;
  /** The newest code of an item that is not used. */
  latestCode(itemId: string): Promise<CustomerCodeRecord | null>;
  /** Codes sent for an item, and to an address, since an instant. */
  countCodes(query: { itemId?: string; addressHash?: string; sinceMs: number }): Promise<number>;
  countAttempt(id: string): Promise<void>;
  useCode(id: string, nowMs: number): Promise<void>;
  pruneCodes(beforeMs: number): Promise<number>;
  proveItem(itemId: string, addressHash: string, nowMs: number): Promise<void>;
  itemProof(itemId: string): Promise<{ addressHash: string; provenAt: number } | null>;
  /** Whether an address was proven on any item. */
  addressProven(addressHash: string): Promise<boolean>;
}

export interface ItemPersonRecord {
  itemId: string;
  network: string;
  ppid: string;
  presentationId: string;
  standing: PersonStanding;
  addressHash: string | null;
  presentedAt: number;
}

/** Passes presented and networks' statuses per item (migration 0015). */
export interface PersonLinkStore {
  recordPerson(record: ItemPersonRecord): Promise<void>;
  itemPersons(itemId: string): Promise<ItemPersonRecord[]>;
  /** The newest presentation per network on other items with the same address. */
  earlierPersons(addressHash: string, excludeItemId: string): Promise<ItemPersonRecord[]>;
  setNetworkStatus(itemId: string, network: string, status: string, nowMs: number): Promise<void>;
  itemNetworks(itemId: string): Promise<Record<string, string>>;
}
