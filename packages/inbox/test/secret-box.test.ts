import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretBox, loadSecretBox } from '../src/domain/secrets/secret-box.js';

const dir = mkdtempSync(join(tmpdir(), 'secret-box-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sealed secrets at rest', () => {
  it('opens what it sealed, and only for the same purpose and row', () => {
    const box = loadSecretBox(dir, undefined);
    const sealed = box.seal('whsec_abc', 'webhook.secret', 'ep1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed, 'webhook.secret', 'ep1')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'webhook.secret', 'ep2')).toThrow();
    expect(() => box.open(sealed, 'webhook.header', 'ep1')).toThrow();
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => box.open(tampered, 'webhook.secret', 'ep1')).toThrow();
  });

  it('keeps its key in the data folder, private to its owner, and reuses it after a restart', () => {
    const first = loadSecretBox(dir, undefined).seal('x', 'p', 'r');
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(loadSecretBox(dir, undefined).open(first, 'p', 'r')).toBe('x');
    expect(readFileSync(join(dir, 'secret.key'), 'utf8').trim()).toHaveLength(44);
  });

  it('refuses a key of the wrong size, and a key from another instance cannot open', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow();
    const sealed = loadSecretBox(dir, undefined).seal('x', 'p', 'r');
    const other = new SecretBox(Buffer.alloc(32, 7));
    expect(() => other.open(sealed, 'p', 'r')).toThrow();
  });
});
