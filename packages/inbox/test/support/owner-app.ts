/**
 * The owner app over HTTP, for tests: signs in with the owner key as a browser would (the sign-in
 * form's token and its cookie, then the session cookie), and posts the app's forms with the session's
 * CSRF token read from a page. No browser: see browser-owner-app.test.ts for the real one.
 */

import { expect } from 'vitest';

/** Pages never carry inline script, inline event handlers or inline styles (the CSP would refuse them anyway). */
export function expectNoInlineCode(page: string): void {
  // Every tag in the page (text never holds a raw "<": it is escaped).
  for (const [found] of page.matchAll(/<[a-zA-Z][^>]*>/g)) {
    // Quoted attribute values are data (their quotes are escaped inside), not attributes.
    const tag = found.replace(/"[^"]*"/g, '""');
    expect(tag).not.toMatch(/^<script(?![^>]*\bsrc=)/i);
    expect(tag).not.toMatch(/\son[a-z]+\s*=/i);
    expect(tag).not.toMatch(/\sstyle\s*=/i);
    expect(tag).not.toMatch(/^<img src=x/);
  }
  expect(page).not.toContain('<script>alert');
}

export interface AppAnswer {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
}

export interface OwnerAppSession {
  /** The session cookie, `name=value`. */
  cookie: string;
  get(path: string, headers?: Record<string, string>): Promise<AppAnswer>;
  /** Posts a form; the CSRF token of the session is added unless `csrf` is given (or null to send none). */
  post(path: string, fields: Record<string, string | string[]>, options?: { csrf?: string | null; headers?: Record<string, string> }): Promise<AppAnswer>;
  csrf: string;
}

async function answer(response: Response): Promise<AppAnswer> {
  return { status: response.status, location: response.headers.get('location'), text: await response.text(), headers: response.headers };
}

export function formBody(fields: Record<string, string | string[]>): string {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
  return body.toString();
}

/** The `name=value` of each cookie a response sets. */
export function setCookies(response: { headers: Headers }): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return cookies;
}

export async function openSignInForm(baseUrl: string): Promise<{ cookie: string; token: string }> {
  const page = await fetch(`${baseUrl}/app/sign-in`);
  const [name, value] = [...setCookies(page)][0] ?? ['', ''];
  const token = /name="signin_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  return { cookie: `${name}=${value}`, token };
}

export async function signInToApp(baseUrl: string, ownerKey: string): Promise<OwnerAppSession> {
  const form = await openSignInForm(baseUrl);
  const signedIn = await fetch(`${baseUrl}/app/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
    body: formBody({ signin_token: form.token, owner_key: ownerKey, next: '/app/inbox' }),
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}: ${await signedIn.text()}`);
  const session = [...setCookies(signedIn)].find(([name, value]) => name.includes('svc_owner') && value !== '');
  if (!session) throw new Error('sign-in set no session cookie');
  const cookie = `${session[0]}=${session[1]}`;
  const get = async (path: string, headers: Record<string, string> = {}) =>
    answer(await fetch(`${baseUrl}${path}`, { redirect: 'manual', headers: { cookie, ...headers } }));
  const setup = await get('/app/setup');
  const csrf = /name="csrf" value="([^"]+)"/.exec(setup.text)?.[1];
  if (!csrf) throw new Error('no CSRF token on /app/setup');
  return {
    cookie,
    csrf,
    get,
    post: async (path, fields, options = {}) => {
      const token = options.csrf === undefined ? csrf : options.csrf;
      return answer(
        await fetch(`${baseUrl}${path}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...(options.headers ?? {}) },
          body: formBody(token === null ? fields : { csrf: token, ...fields }),
        }),
      );
    },
  };
}

/**
 * Sets the security section as only the owner in the owner app can (inbox spec §5): the settings
 * form's security fields, posted in a session. Values not given stay as they are.
 */
export async function setSecurityInApp(
  baseUrl: string,
  ownerKey: string,
  security: { enforceScopes?: boolean; aiMayCreateKeys?: boolean },
  current: { enforceScopes: boolean; aiMayCreateKeys: boolean },
): Promise<AppAnswer> {
  const app = await signInToApp(baseUrl, ownerKey);
  const next = { ...current, ...security };
  const fields: Record<string, string> = { security: '1' };
  if (next.enforceScopes) fields.enforceScopes = '1';
  if (next.aiMayCreateKeys) fields.aiMayCreateKeys = '1';
  return app.post('/app/setup/settings', fields);
}
