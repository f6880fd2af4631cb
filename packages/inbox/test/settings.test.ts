/**
 * get_settings / update_settings (inbox spec §2 "Settings document", §4, §9): defaults and version,
 * merge with null removing a key, networks keyed by origin, the redacted secret, expected_version,
 * and refusals that store nothing.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startInbox, type TestInbox } from './support/harness.js';
import { rawRows, storedAnywhere } from '../../../test-support/test-database.js';

const SECRET = 'inbound-secret-0123456789abcdef';

const DEFAULTS = {
  email: { inboundSecret: null },
  networks: {},
  security: { aiMayCreateKeys: false, enforceScopes: false },
  booking: { cancellationWindowMinutes: 1440, lateCancellation: 'record', autoCompleteHours: 48 },
  orders: { payDays: 14 },
  quotes: { defaultValidityHours: 336 },
  notifications: { ownerEmail: null, customerReminders: true },
};

describe('settings', () => {
  let t: TestInbox;

  const read = async () => {
    const r = await t.owner('GET', '/v1/owner/settings');
    expect(r.status).toBe(200);
    return r.body as { version: number; settings: any; redacted: string[] };
  };
  const write = (settings: unknown, extra: Record<string, unknown> = {}) => t.owner('PUT', '/v1/owner/settings', { body: { settings, ...extra } });

  beforeEach(async () => {
    t = await startInbox();
  });
  afterEach(() => t.close());

  it('reads the defaults at version 0 before anything is written, never cached', async () => {
    const r = await t.owner('GET', '/v1/owner/settings');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({ version: 0, settings: DEFAULTS, redacted: [] });
  });

  it('needs the owner key', async () => {
    expect((await t.request('GET', '/v1/owner/settings')).status).toBe(401);
    expect((await t.request('PUT', '/v1/owner/settings', { body: { settings: { orders: { payDays: 3 } } } })).status).toBe(401);
    expect((await read()).settings.orders.payDays).toBe(14);
  });

  it('merges what is sent over the document and counts versions', async () => {
    const first = await write({ booking: { autoCompleteHours: 24 } });
    expect(first.status).toBe(200);
    expect(first.body.version).toBe(1);
    expect(first.body.settings.booking).toEqual({ cancellationWindowMinutes: 1440, lateCancellation: 'record', autoCompleteHours: 24 });

    const second = await write({ booking: { lateCancellation: 'refuse' }, orders: { payDays: 7 } });
    expect(second.body.version).toBe(2);
    // The earlier autoCompleteHours stays: objects merge key by key.
    expect(second.body.settings.booking).toEqual({ cancellationWindowMinutes: 1440, lateCancellation: 'refuse', autoCompleteHours: 24 });
    expect(second.body.settings.orders).toEqual({ payDays: 7 });

    const back = await read();
    expect(back).toEqual({ version: 2, settings: second.body.settings, redacted: [] });
  });

  it('removes a key sent as null so its default applies again', async () => {
    await write({ booking: { autoCompleteHours: 24, lateCancellation: 'refuse' } });
    const r = await write({ booking: { autoCompleteHours: null } });
    expect(r.status).toBe(200);
    expect(r.body.settings.booking).toEqual({ cancellationWindowMinutes: 1440, lateCancellation: 'refuse', autoCompleteHours: 48 });

    // A whole section as null falls back to the default section.
    const section = await write({ booking: null });
    expect(section.status).toBe(200);
    expect((await read()).settings.booking).toEqual(DEFAULTS.booking);
  });

  it('keys networks by origin: adding one leaves the others, null removes one', async () => {
    await write({ networks: { 'https://net-a.example': { enabled: true, issue: true } } });
    const added = await write({ networks: { 'https://net-b.example': { enabled: false } } });
    expect(added.status).toBe(200);
    expect(added.body.settings.networks).toEqual({
      'https://net-a.example': { enabled: true, issue: true },
      'https://net-b.example': { enabled: false },
    });

    const changed = await write({ networks: { 'https://net-a.example': { enabled: false } } });
    expect(changed.body.settings.networks['https://net-a.example']).toEqual({ enabled: false, issue: true });

    const removed = await write({ networks: { 'https://net-a.example': null } });
    expect(removed.body.settings.networks).toEqual({ 'https://net-b.example': { enabled: false } });
    expect((await read()).settings.networks).toEqual({ 'https://net-b.example': { enabled: false } });
  });

  it('reads a set secret as redacted, keeps it when written back as read or left out, and removes it with null', async () => {
    const set = await write({ email: { inboundSecret: SECRET } });
    expect(set.status).toBe(200);
    expect(set.body.settings.email.inboundSecret).toBe('[redacted]');
    expect(set.body.redacted).toEqual(['email.inboundSecret']);
    expect(JSON.stringify(set.body)).not.toContain(SECRET);

    const asRead = await read();
    expect(asRead.settings.email.inboundSecret).toBe('[redacted]');
    expect(asRead.redacted).toEqual(['email.inboundSecret']);
    expect(JSON.stringify(asRead)).not.toContain(SECRET);

    // Write the document back exactly as read, with one change.
    const doc = structuredClone(asRead.settings);
    doc.orders.payDays = 5;
    const writtenBack = await write(doc, { expected_version: asRead.version });
    expect(writtenBack.status).toBe(200);
    expect(writtenBack.body.redacted).toEqual(['email.inboundSecret']);
    expect(writtenBack.body.settings.orders.payDays).toBe(5);

    // Without the secret (and without the email section) it stays too.
    const without = await write({ orders: { payDays: 6 }, email: {} });
    expect(without.body.redacted).toEqual(['email.inboundSecret']);
    expect((await write({ quotes: { defaultValidityHours: 48 } })).body.redacted).toEqual(['email.inboundSecret']);

    // The stored value is the original secret, not the marker.
    const stored = await t.inbox.store.settings.get();
    expect((stored?.document as any).email.inboundSecret).toBe(SECRET);

    const removed = await write({ email: { inboundSecret: null } });
    expect(removed.status).toBe(200);
    expect(removed.body.redacted).toEqual([]);
    expect(removed.body.settings.email.inboundSecret).toBeNull();
    expect((await read()).redacted).toEqual([]);
  });

  it('keeps a secret sealed at rest: neither the database nor its WAL holds it in clear', async () => {
    expect((await write({ email: { inboundSecret: SECRET } })).status).toBe(200);
    expect(await storedAnywhere('inbox', t.dataDir, SECRET)).toBe(false);
    const [row] = (await rawRows('inbox', t.dataDir, "select document from settings where id = 'self'")) as { document: string }[];
    expect(JSON.parse(row!.document).email.inboundSecret).toMatch(/^v1\./);
    // The code that needs it reads it open.
    expect(((await t.inbox.store.settings.get())?.document as any).email.inboundSecret).toBe(SECRET);
  });

  it('seals a secret an earlier version kept in clear, at its first read, without a new version', async () => {
    expect((await write({ orders: { payDays: 9 } })).status).toBe(200);
    await rawRows('inbox', t.dataDir, "update settings set document = ? where id = 'self'", [JSON.stringify({ orders: { payDays: 9 }, email: { inboundSecret: SECRET } })]);
    const asRead = await read();
    expect(asRead).toMatchObject({ version: 1, redacted: ['email.inboundSecret'], settings: { orders: { payDays: 9 } } });
    const [row] = (await rawRows('inbox', t.dataDir, "select document, version from settings where id = 'self'")) as { document: string; version: number }[];
    expect(row!.version).toBe(1);
    expect(row!.document).not.toContain(SECRET);
    expect(JSON.parse(row!.document).email.inboundSecret).toMatch(/^v1\./);
    expect(((await t.inbox.store.settings.get())?.document as any).email.inboundSecret).toBe(SECRET);
  });

  it('refuses a stale expected_version with 409 version_conflict and changes nothing', async () => {
    await write({ orders: { payDays: 10 } });
    const stale = await write({ orders: { payDays: 3 } }, { expected_version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(stale.body).toMatchObject({ code: 'version_conflict', status: 409 });
    expect(await read()).toMatchObject({ version: 1, settings: { orders: { payDays: 10 } } });

    const ahead = await write({ orders: { payDays: 3 } }, { expected_version: 5 });
    expect(ahead.status).toBe(409);

    const current = await write({ orders: { payDays: 3 } }, { expected_version: 1 });
    expect(current.status).toBe(200);
    expect(current.body.version).toBe(2);
  });

  describe('refusals store nothing', () => {
    const cases: [string, unknown, string][] = [
      ['an unknown top-level key', { colour: 'blue' }, 'settings.colour'],
      ['an unknown key in a section', { booking: { lateCancellation: 'record', overbook: true } }, 'settings.booking.overbook'],
      ['a string for a number', { booking: { autoCompleteHours: 'soon' } }, 'settings.booking.autoCompleteHours'],
      ['a number out of range', { orders: { payDays: 0 } }, 'settings.orders.payDays'],
      ['lateCancellation maybe', { booking: { lateCancellation: 'maybe' } }, 'settings.booking.lateCancellation'],
      ['a boolean as a string', { security: { enforceScopes: 'yes' } }, 'settings.security.enforceScopes'],
      ['a network keyed by something not an origin', { networks: { 'not a url': { enabled: true } } }, 'settings.networks'],
      ['a network without enabled', { networks: { 'https://net-c.example': { issue: true } } }, 'settings.networks'],
      ['a too-short secret', { email: { inboundSecret: 'short' } }, 'settings.email.inboundSecret'],
      ['a section that is not an object', { booking: 5 }, 'settings.booking'],
    ];

    it.each(cases)('refuses %s with 422 and the field', async (_label, patch, path) => {
      await write({ booking: { autoCompleteHours: 30 } });
      const before = await read();
      // A valid change sent alongside must not be stored either.
      const r = await write({ ...(patch as object), quotes: { defaultValidityHours: 2 } });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe('invalid_input');
      const paths: string[] = r.body.fields.map((f: any) => f.path);
      expect(paths.some((p) => p === path || p.startsWith(`${path}.`)), paths.join(', ')).toBe(true);
      // The detail names the same paths the fields do.
      for (const p of paths) expect(r.body.detail).toContain(p);
      expect(await read()).toEqual(before);
    });

    it('refuses a settings value that is not an object', async () => {
      const r = await write(['booking']);
      expect(r.status).toBe(422);
      expect(r.body.fields.map((f: any) => f.path)).toContain('settings');
      expect((await read()).version).toBe(0);
    });
  });
});

describe('settings with an idempotency key', () => {
  let t: TestInbox;
  beforeAll(async () => {
    t = await startInbox();
  });
  afterAll(() => t.close());

  it('replays the first answer and writes once', async () => {
    const body = { settings: { orders: { payDays: 9 } } };
    const first = await t.owner('PUT', '/v1/owner/settings', { body, headers: { 'idempotency-key': 'settings-1' } });
    const again = await t.owner('PUT', '/v1/owner/settings', { body, headers: { 'idempotency-key': 'settings-1' } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await t.owner('GET', '/v1/owner/settings')).body.version).toBe(1);
  });
});
