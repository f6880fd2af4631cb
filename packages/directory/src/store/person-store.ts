/** What a network keeps of persons (docs/identity.md "The network side"), in domain terms. */
export interface PersonRecord {
  id: string;
  emailMac: string;
  createdAt: number;
  emailProvenAt: number | null;
  kept: number;
  broken: number;
}
export interface PersonKeyRecord {
  id: string;
  personId: string;
  secretHash: string | null;
  createdAt: number;
  mailedAt: number | null;
  revokedAt: number | null;
}
export interface PassRecord {
  id: string;
  personId: string;
  keyId: string;
  secretHash: string;
  delegatedJkt: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface PersonStore {
  byEmailMac(mac: string): Promise<PersonRecord | null>;
  get(id: string): Promise<PersonRecord | null>;
  insert(person: PersonRecord): Promise<void>;
  proveEmail(id: string, nowMs: number): Promise<void>;
  addKey(key: PersonKeyRecord): Promise<void>;
  getKey(id: string): Promise<PersonKeyRecord | null>;
  setKeySecret(id: string, secretHash: string, nowMs: number): Promise<void>;
  revokeKey(id: string, nowMs: number): Promise<void>;
  addPass(pass: PassRecord): Promise<void>;
  getPass(id: string): Promise<PassRecord | null>;
  revokePass(id: string, nowMs: number): Promise<void>;
  revokePassesOfKey(keyId: string, nowMs: number): Promise<number>;
  addPresentation(p: { id: string; personId: string; passId: string; instance: string; createdAt: number }): Promise<void>;
  presentation(id: string): Promise<{ id: string; personId: string; instance: string } | null>;
  /** Distinct businesses the person was presented at. */
  businesses(personId: string): Promise<number>;
  /** Presentations of a pass since an instant, and the distinct businesses among them. */
  recentUse(passId: string, sinceMs: number): Promise<{ presentations: number; businesses: number }>;
  /** Records an outcome once per (presentation, receipt); false when it was there. */
  addOutcome(o: { presentationId: string; receiptId: string; personId: string; side: string; createdAt: number }): Promise<boolean>;
  addIssuance(i: { id: string; instance: string; personId: string; createdAt: number }): Promise<void>;
  issuancesSince(instance: string, sinceMs: number): Promise<number>;
}
