/**
 * Content negotiation for addresses that answer both a person and a program (GET /c/{id}): a
 * browser asks for HTML first (`text/html,application/xhtml+xml,…,*\/*;q=0.8`), a program asks for
 * JSON or for anything (`*\/*`, or nothing). HTML is chosen only when the request ranks it above
 * JSON, so every client that worked before keeps its JSON.
 */

/** The quality the Accept header gives a media type (its exact entry, else type/*, else *\/*; 0 when none). */
function qualityOf(entries: { type: string; q: number }[], type: string): number {
  const [main] = type.split('/');
  let best = -1;
  let bestSpecificity = -1;
  for (const entry of entries) {
    const specificity = entry.type === type ? 2 : entry.type === `${main}/*` ? 1 : entry.type === '*/*' ? 0 : -1;
    if (specificity > bestSpecificity) {
      bestSpecificity = specificity;
      best = entry.q;
    }
  }
  return best < 0 ? 0 : best;
}

export function prefersHtml(accept: string | string[] | undefined): boolean {
  const header = Array.isArray(accept) ? accept.join(',') : accept;
  if (!header) return false;
  const entries = header.split(',').map((part) => {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    return { type: type.trim(), q: Number.isFinite(value) ? value : 0 };
  });
  const html = qualityOf(entries, 'text/html');
  const json = qualityOf(entries, 'application/json');
  return html > 0 && html > json;
}
