/**
 * The stylesheet both services' pages start from: system fonts, readable on a phone first and on a
 * desktop, visible focus, colours with at least 4.5:1 contrast, no web fonts and nothing external.
 */
export const BASE_STYLES = `
:root{--ink:#1b1b19;--muted:#55554f;--line:#d6d6cf;--bg:#f7f7f4;--card:#fff;--accent:#1d5c3a;--accent-ink:#fff;--warn:#7a4d00;--warn-bg:#fff4db;--bad:#9b1c1c;--bad-bg:#fdecea;--ok-bg:#e7f3ea;--focus:#1a56db}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent)}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--card);padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem}
header.top{background:var(--card);border-bottom:1px solid var(--line)}
header.top .bar{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;max-width:72rem;margin:0 auto;padding:.5rem 1rem}
header.top .brand{font-weight:700;text-decoration:none;color:var(--ink);margin-right:auto}
header.top nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
header.top nav a[aria-current=page]{font-weight:700}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.45rem;margin:.25rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .25rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem;margin:0 0 1rem}
.muted{color:var(--muted)}
.small{font-size:.875rem}
.notice{border-radius:8px;padding:.6rem .9rem;margin:0 0 1rem;border:1px solid var(--line);background:var(--card)}
.notice.ok{background:var(--ok-bg);border-color:#9cc7a8}
.notice.bad{background:var(--bad-bg);border-color:#e0a39c;color:var(--bad)}
.notice.warn{background:var(--warn-bg);border-color:#e6c27a;color:var(--warn)}
label{font-weight:600;display:block;margin:.5rem 0 .2rem}
label.inline{display:inline-flex;gap:.4rem;align-items:center;font-weight:400;margin:.25rem 1rem .25rem 0}
input,select,textarea,button{font:inherit}
input[type=text],input[type=search],input[type=url],input[type=email],input[type=password],input[type=number],input[type=time],input[type=date],input[type=datetime-local],select,textarea{width:100%;max-width:36rem;padding:.5rem .6rem;border:1px solid #8a8a83;border-radius:6px;background:#fff;color:var(--ink);min-height:2.75rem}
textarea{min-height:6rem}
input[type=checkbox],input[type=radio]{width:1.25rem;height:1.25rem}
button,.button{display:inline-flex;align-items:center;justify-content:center;gap:.4rem;min-height:2.75rem;padding:.5rem 1rem;border-radius:6px;border:1px solid #6b6b64;background:#fff;color:var(--ink);cursor:pointer;text-decoration:none}
button.primary,.button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-ink)}
button.danger{border-color:var(--bad);color:var(--bad)}
.row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end}
.row>div{flex:1 1 12rem}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0}
.actions form{margin:0}
.help{font-size:.875rem;color:var(--muted);margin:.2rem 0 .5rem}
.field-error{color:var(--bad);font-size:.875rem}
dl.facts{display:grid;grid-template-columns:minmax(7rem,max-content) 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:.875rem}
.table-wrap{overflow-x:auto}
.badge{display:inline-block;font-size:.8rem;padding:.05rem .5rem;border-radius:999px;border:1px solid var(--line);background:#f0f0ea;color:var(--ink);white-space:nowrap}
.badge.accent{background:var(--ok-bg);border-color:#9cc7a8}
.badge.warn{background:var(--warn-bg);border-color:#e6c27a;color:var(--warn)}
.badge.bad{background:var(--bad-bg);border-color:#e0a39c;color:var(--bad)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875em;overflow-wrap:anywhere}
details>summary{cursor:pointer;min-height:2.75rem;display:flex;align-items:center}
.visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.pager{display:flex;gap:1rem;margin:1rem 0}
footer.foot{max-width:72rem;margin:2rem auto;padding:0 1rem;color:var(--muted);font-size:.875rem}
@media (min-width:48rem){h1{font-size:1.7rem}}
`;
