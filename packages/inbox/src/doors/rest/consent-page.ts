/**
 * The consent page of OAuth for the owner's MCP: plain HTML, no external assets, every string a
 * client supplied escaped. It says who asks (the name the app gave itself, and where it returns),
 * what it may do (each scope in plain words, ticked), that what is left ticked binds the app (its
 * other calls are refused, whatever security.enforceScopes says), and asks for an owner key to approve.
 */
import { randomToken } from '@svc/shared';
import type { ConsentView } from '../../domain/access/oauth/authorization.js';
import { SCOPE_WORDS, isScope } from '../../domain/access/oauth/scopes.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=/]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface RenderedPage {
  html: string;
  /** The page's Content-Security-Policy: its own inline style by nonce, and forms to this server and the app's redirect. */
  csp: string;
}

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}
main{max-width:34rem;margin:2rem auto;background:#fff;border:1px solid #ddd;border-radius:10px;padding:1.5rem 1.75rem}
h1{font-size:1.3rem;margin:0 0 1rem}
.who{background:#f3f3ef;border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem}
.who dt{font-size:.8rem;color:#555;margin-top:.4rem}.who dd{margin:0;word-break:break-all}
.warn{font-size:.9rem;color:#6b4e00}
.binds{background:#eef5ef;border-radius:6px;padding:.6rem .8rem}
.notice{background:#fdecea;border:1px solid #e0a39c;border-radius:6px;padding:.6rem .8rem;margin:0 0 1rem}
ul{list-style:none;padding:0}li{margin:.4rem 0}code{font-size:.8rem;color:#555}
label.key{display:block;margin:1rem 0 .3rem;font-weight:600}
input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #bbb;border-radius:6px}
.buttons{display:flex;gap:.75rem;margin-top:1.25rem}
button{font:inherit;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #888;background:#fff;cursor:pointer}
button.allow{background:#1d5c3a;color:#fff;border-color:#1d5c3a}
`;

function page(title: string, body: string, formTargets: string): RenderedPage {
  const nonce = randomToken(16);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `form-action ${formTargets}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return { html, csp };
}

export function renderConsentPage(view: ConsentView, businessName: string, action: string): RenderedPage {
  const appName = view.client.name ?? 'An app with no name';
  const redirect = new URL(view.redirectUri);
  const scopes = view.scopes
    .map((scope) => {
      const words = isScope(scope) ? SCOPE_WORDS[scope] : scope;
      return `<li><label><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked> ${escapeHtml(words)} <code>${escapeHtml(scope)}</code></label></li>`;
    })
    .join('\n');
  const body = `
<h1>Connect \u201c${escapeHtml(appName)}\u201d to the inbox of ${escapeHtml(businessName)}?</h1>
${view.notice ? `<p class="notice" role="alert">${escapeHtml(view.notice)}</p>` : ''}
<dl class="who">
<dt>App (the name it gave itself)</dt><dd>${escapeHtml(appName)}</dd>
${view.client.clientUri ? `<dt>Its website, as it says</dt><dd>${escapeHtml(view.client.clientUri)}</dd>` : ''}
<dt>After you answer, you go back to</dt><dd><strong>${escapeHtml(redirect.host)}</strong> (${escapeHtml(view.redirectUri)})</dd>
</dl>
<p class="warn">Allow only an app you are connecting yourself, right now. Its calls will be recorded as this app\u2019s.</p>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<p>It asks to:</p>
<ul>
${scopes}
</ul>
<p class="binds"><strong>It can do only what you leave ticked.</strong> Anything else it tries is refused, and each refused call is listed under the app in your connected AI apps (<code>GET /v1/owner/ai-apps</code>), so you can see what it wanted. To give it more later, connect it again. You can disconnect it at any time.</p>
<label class="key" for="owner_key">Your owner key, to approve</label>
<input type="password" id="owner_key" name="owner_key" autocomplete="off" spellcheck="false" placeholder="svc_own_\u2026">
<div class="buttons">
<button class="allow" type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`;
  return page(`Connect ${appName}`, body, `'self' ${redirect.origin}`);
}

export function renderErrorPage(message: string): RenderedPage {
  return page('Cannot connect the app', `<h1>Cannot connect the app</h1>\n<p>${escapeHtml(message)}</p>`, "'none'");
}
