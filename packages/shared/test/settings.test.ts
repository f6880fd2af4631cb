/**
 * Settings a start reads from the environment: what each takes, and a refusal that names the setting
 * (SettingError, printed by `npm start` without a stack). TRUST_PROXY's forms are held against
 * Fastify's own reading of them, the library that uses them.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ListenError, SettingError, StartRefusal, keyFromSetting, trustProxyFromSetting, whyStartStopped } from '../src/index.js';

/** Whether Fastify takes this proxy list, and answers a request with it. */
async function fastifyTakes(proxies: string[]): Promise<boolean> {
  try {
    const app = Fastify({ trustProxy: proxies });
    app.get('/', (request) => ({ ip: request.ip }));
    const response = await app.inject({ url: '/', headers: { 'x-forwarded-for': '203.0.113.9' } });
    await app.close();
    return response.statusCode === 200;
  } catch {
    return false;
  }
}

describe('TRUST_PROXY', () => {
  it('takes off, true, a number of hops, and addresses or CIDRs that Fastify takes too', async () => {
    expect(trustProxyFromSetting(undefined)).toBe(false);
    expect(trustProxyFromSetting('')).toBe(false);
    expect(trustProxyFromSetting('false')).toBe(false);
    expect(trustProxyFromSetting('true')).toBe(true);
    expect(trustProxyFromSetting('2')).toBe(2);
    const list = trustProxyFromSetting(' 10.0.0.0/8, 192.168.1.7 ,::1, fd00::/8, 172.16.0.0/255.240.0.0, loopback, uniquelocal ');
    expect(list).toEqual(['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8', '172.16.0.0/255.240.0.0', 'loopback', 'uniquelocal']);
    expect(await fastifyTakes(list as string[])).toBe(true);
  });

  it('refuses, naming the entry, what Fastify would refuse at the first request', async () => {
    for (const bad of ['maybe-not', '10.0.0.0/33', '300.1.1.1', '::1/129', '10.0.0.1/8/1', 'proxy.example']) {
      expect(() => trustProxyFromSetting(`127.0.0.1,${bad}`)).toThrow(SettingError);
      expect(() => trustProxyFromSetting(`127.0.0.1,${bad}`)).toThrow(`TRUST_PROXY must be true, a number of hops, or the proxies' addresses or CIDRs separated by commas, not ${bad}`);
      expect(await fastifyTakes(['127.0.0.1', bad]), bad).toBe(false);
    }
  });
});

describe('a key given as a setting', () => {
  it('is base64 of exactly its length', () => {
    const key = Buffer.alloc(32, 7);
    expect(keyFromSetting('INBOX_SECRET_KEY', ` ${key.toString('base64')}\n`, 32).equals(key)).toBe(true);
  });

  it('is refused otherwise, naming the setting and how to make one', () => {
    for (const [value, holds] of [['abc', 2], [Buffer.alloc(16).toString('base64'), 16], [Buffer.alloc(33).toString('base64'), 33]] as const) {
      expect(() => keyFromSetting('DIRECTORY_LOG_KEY', value, 32)).toThrow(SettingError);
      expect(() => keyFromSetting('DIRECTORY_LOG_KEY', value, 32)).toThrow(`DIRECTORY_LOG_KEY must be base64 of 32 bytes (such as \`openssl rand -base64 32\`); it holds ${holds}`);
    }
  });
});

describe('what a start prints when it stops', () => {
  it('is a refusal\'s own sentence, and anything else with its stack', () => {
    expect(whyStartStopped(new SettingError('INBOX_PORT must be a port number, not eighty'))).toBe('INBOX_PORT must be a port number, not eighty');
    expect(whyStartStopped(new StartRefusal('The database cannot be reached.', null))).toBe('The database cannot be reached.');
    expect(whyStartStopped(new ListenError('The inbox cannot listen.', 'EADDRINUSE'))).toBe('The inbox cannot listen.');
    const defect = new TypeError('x is not a function');
    expect(whyStartStopped(defect)).toBe(defect.stack);
    expect(whyStartStopped(defect)).toMatch(/\n\s+at /);
    expect(whyStartStopped('a string thrown')).toBe('a string thrown');
  });
});
