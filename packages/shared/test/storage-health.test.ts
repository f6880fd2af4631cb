/**
 * When an episode of storage failure ends (storage-health.ts, docs/security.md "When the disk
 * fills"): only when the probe lands. A commit meanwhile is no proof (a one-row write fits where a
 * create does not) and only asks for a probe; probes run at most once a second, one at a time.
 */
import { STORAGE_PROBE_EVERY_MS, StorageHealth } from '@svc/shared';
import { describe, expect, it } from 'vitest';

const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

function healthWithClock() {
  const clock = { ms: 1_000_000 };
  const lines: string[] = [];
  const health = new StorageHealth({ now: () => clock.ms, log: (_level, message) => void lines.push(message) });
  const probe = { calls: 0, fails: true };
  health.probeWith(async () => {
    probe.calls++;
    if (probe.fails) throw full();
  });
  return { clock, lines, health, probe };
}

describe('StorageHealth', () => {
  it('stays unwritable after a commit while the probe fails, and ends only when it lands', async () => {
    const { clock, lines, health, probe } = healthWithClock();
    health.noteFailure(full());
    health.noteCommitted();
    await health.check();
    expect(probe.calls).toBe(1);
    expect(health.writable).toBe(false);
    expect(await health.check()).toMatchObject({ writable: false, failure: { code: 'storage_full' } });
    // The same second: no second probe, from a commit or from /healthz.
    health.noteCommitted();
    await health.check();
    expect(probe.calls).toBe(1);
    clock.ms += STORAGE_PROBE_EVERY_MS;
    probe.fails = false;
    // A commit asks for the probe; its success ends the episode.
    health.noteCommitted();
    expect(await health.check()).toEqual({ writable: true });
    expect(probe.calls).toBe(2);
    expect(lines.filter((line) => /cannot be written/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => /writable again/.test(line))).toHaveLength(1);
  });

  it('runs one probe at a time: /healthz waits for the one a commit started', async () => {
    const { health, probe } = healthWithClock();
    let land: () => void = () => undefined;
    health.probeWith(
      () =>
        new Promise<void>((resolve) => {
          probe.calls++;
          land = resolve;
        }),
    );
    health.noteFailure(full());
    health.noteCommitted();
    const checked = health.check();
    await Promise.resolve();
    expect(probe.calls).toBe(1);
    land();
    expect(await checked).toEqual({ writable: true });
    expect(probe.calls).toBe(1);
  });

  it('never probes while writes succeed', async () => {
    const { health, probe } = healthWithClock();
    health.noteCommitted();
    expect(await health.check()).toEqual({ writable: true });
    expect(probe.calls).toBe(0);
  });

  it('counts a COMMIT lost in an outage that is over as part of it: logged once, not a new outage', () => {
    const { clock, lines, health } = healthWithClock();
    const lost = (code: string) => Object.assign(new Error('Connection terminated unexpectedly'), { code });
    // One call sees the server go; another's COMMIT leaves a moment later on a socket not yet closed.
    health.noteFailure(lost('08006'));
    clock.ms += 5;
    const commitSentAt = health.now();
    // The new primary takes a write: the outage is over.
    clock.ms += 800;
    health.noteCommitted(health.now());
    expect(health.writable).toBe(true);
    // The lost COMMIT's outcome could not be learned in time: known only now, after the outage.
    clock.ms += 2_000;
    expect(health.noteFailure(lost('08007'), commitSentAt)).toBe('unknown_outcome');
    expect(health.writable).toBe(true);
    expect(lines.filter((line) => /cannot be reached/.test(line))).toHaveLength(1);
    // A COMMIT sent after the outage ended and lost is a new outage.
    const laterSentAt = health.now();
    expect(health.noteFailure(lost('08007'), laterSentAt)).toBe('unknown_outcome');
    expect(health.writable).toBe(false);
    expect(lines.filter((line) => /cannot be reached/.test(line))).toHaveLength(2);
  });
});
