/** The owner app's styles on top of the shared base (shared/src/web/base-styles.ts). */
import { BASE_STYLES } from '@svc/shared';

export const APP_STYLES = `${BASE_STYLES}
.inbox{display:grid;gap:1rem}
@media (min-width:60rem){.inbox{grid-template-columns:16rem 1fr}.inbox-filters{grid-column:1;grid-row:1}.inbox-list{grid-column:2}.item-grid{display:grid;grid-template-columns:1fr 1fr;gap:1rem}}
.filters-fold summary{cursor:pointer;font-weight:600}
.filters-fold[open] summary{margin-bottom:.5rem}
.filters fieldset{border:0;padding:0;margin:0 0 .5rem}
.filters legend{font-weight:600;padding:0}
ul.items{list-style:none;margin:0;padding:0}
ul.items li{background:var(--card);border:1px solid var(--line);border-radius:10px;margin:0 0 .5rem}
ul.items a{display:block;padding:.75rem 1rem;color:var(--ink);text-decoration:none}
ul.items a:hover .who{text-decoration:underline}
ul.items .who{font-weight:600}
ul.items .meta{display:flex;flex-wrap:wrap;gap:.25rem .5rem;align-items:center;font-size:.875rem;color:var(--muted)}
ul.items li.flagged{border-left:4px solid var(--warn)}
.tabs{display:flex;gap:.5rem;margin:0 0 1rem;flex-wrap:wrap}
.tabs a{padding:.35rem .8rem;border-radius:999px;border:1px solid var(--line);text-decoration:none;background:var(--card)}
.tabs a[aria-current=page]{background:var(--accent);color:var(--accent-ink);border-color:var(--accent)}
.conversation{list-style:none;padding:0;margin:0}
.conversation li{border-radius:10px;padding:.6rem .8rem;margin:0 0 .5rem;background:#f0f0ea;max-width:40rem}
.conversation li.business{background:var(--ok-bg);margin-left:auto}
.conversation li.internal{background:var(--warn-bg);border:1px dashed #c9a24c}
.events{list-style:none;padding:0;margin:0;font-size:.9rem}
.events li{padding:.3rem 0;border-bottom:1px solid var(--line)}
.moves details{border:1px solid var(--line);border-radius:8px;padding:0 .75rem;margin:.5rem 0;background:#fbfbf8}
.moves details[open]{padding-bottom:.75rem}
.setup-nav ul{list-style:none;padding:0;margin:0 0 1rem;display:flex;flex-wrap:wrap;gap:.5rem}
.setup-nav a{display:inline-block;padding:.35rem .8rem;border:1px solid var(--line);border-radius:999px;background:var(--card);text-decoration:none}
.setup-nav a[aria-current=page]{background:var(--accent);color:var(--accent-ink);border-color:var(--accent)}
.week td,.week th{padding:.3rem}
.week input[type=time]{min-width:7rem}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;background:var(--warn-bg);border:1px solid #e6c27a;border-radius:8px;padding:.75rem}
.secret output{font-family:ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere;flex:1 1 20rem}
.lang-switch{font-size:.875rem}
.pre{white-space:pre-wrap;overflow-wrap:anywhere}
.live-status{font-size:.8rem}
.day-nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:0 0 .75rem}
.today{display:grid;gap:1rem}
@media (min-width:60rem){.today{grid-template-columns:1fr 1fr}}
ol.agenda{list-style:none;margin:0;padding:0}
ol.agenda li{padding:.5rem 0;border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:.25rem .6rem;align-items:baseline}
ol.agenda time{font-variant-numeric:tabular-nums;font-weight:600;min-width:7.5rem}
ol.agenda li.gone{color:var(--muted)}
ol.agenda li.gone a{color:var(--muted)}
.cal-scroll{overflow-x:auto;max-width:100%;border:1px solid var(--line);border-radius:8px;background:var(--card)}
.cal-scroll:focus{outline:2px solid var(--accent)}
table.cal{border-collapse:collapse;width:100%;font-size:.875rem}
table.cal caption{text-align:left;padding:.5rem;font-weight:600}
table.cal th,table.cal td{border:1px solid var(--line);padding:.2rem .35rem;vertical-align:top;text-align:left}
table.cal thead th{position:sticky;top:0;background:var(--card);min-width:9rem}
table.cal-day tbody th{font-variant-numeric:tabular-nums;font-weight:400;color:var(--muted);white-space:nowrap;width:4rem}
table.cal-day tbody th.hour{font-weight:600;color:var(--ink)}
table.cal .off{background:#ecebe4}
table.cal td.bk{background:var(--ok-bg)}
table.cal td.bk.waiting,table.cal li.bk.waiting{background:var(--warn-bg)}
table.cal-week td{min-width:9rem}
table.cal-week ul{list-style:none;margin:0;padding:0}
table.cal-week li.bk{background:var(--ok-bg);border-radius:6px;padding:.2rem .3rem;margin:0 0 .25rem}
table.cal-week thead th .small{display:block;font-weight:400}
.slot-full{border-left:4px solid var(--warn)}
.slot-full ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
`;
