/** The sign-in page: the owner key once, into a password field that is never filled back. */
import { html } from '@svc/shared';
import type { Messages } from '../messages-en.js';
import { notice, type PageFrame } from './layout.js';

export function renderSignIn(t: Messages, signInToken: string, next: string, message: { kind: 'ok' | 'bad'; text: string } | null): PageFrame {
  const body = html`<h1>${t.signIn.title}</h1>
${message ? notice(message.kind, message.text) : null}
<form class="card" method="post" action="/app/sign-in">
<input type="hidden" name="signin_token" value="${signInToken}">
<input type="hidden" name="next" value="${next}">
<p>${t.signIn.intro}</p>
<label for="owner_key">${t.signIn.key}</label>
<input type="password" id="owner_key" name="owner_key" autocomplete="current-password" spellcheck="false" required aria-describedby="key-help">
<p class="help" id="key-help">${t.signIn.keyHelp}</p>
<div class="actions"><button type="submit" class="primary">${t.signIn.submit}</button></div>
</form>`;
  return { title: t.signIn.title, section: 'none', body };
}
