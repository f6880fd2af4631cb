/**
 * The badge a site shows of its check result (GET /b/{domain}/badge.svg): a small SVG with the grade
 * and score, or the state while there is none. It holds only our own words and numbers, never text
 * the site wrote, so it is the same safe image on any page that embeds it. A site that tells AI
 * systems to keep away gets its grade without the number (it is not ranked or named anywhere).
 */
import { escapeText } from '@svc/shared';

export interface BadgeSource {
  state: string;
  grade?: string;
  agentic_score?: number;
  ai_opt_out?: boolean;
}

const LABEL = 'agent check';
const GRADE_COLOURS: Record<string, string> = { A: '#1d5c3a', B: '#2d6a1f', C: '#7a5c00', D: '#8f4500', E: '#9b1c1c' };
const STATE_WORDS: Record<string, string> = {
  not_checked: 'not checked',
  queued: 'checking',
  checking: 'checking',
  scoring: 'checking',
  blocked: 'closed to us',
  failed: 'not finished',
  hidden: 'hidden',
  not_checkable: 'unreachable',
};

/** Width of a text in Verdana 11 px, near enough for a badge (narrow letters count less). */
function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += /[ il.,:·'|!]/.test(char) ? 3.6 : /[A-Z0-9mw]/.test(char) ? 7.8 : 6.6;
  return Math.round(width);
}

export function badgeValue(source: BadgeSource): { text: string; colour: string } {
  if (source.state === 'done' && source.grade) {
    const colour = GRADE_COLOURS[source.grade] ?? '#55554f';
    return { text: source.ai_opt_out || source.agentic_score === undefined ? source.grade : `${source.grade} · ${source.agentic_score}`, colour };
  }
  return { text: STATE_WORDS[source.state] ?? 'not checked', colour: '#55554f' };
}

export function badgeSvg(source: BadgeSource): string {
  const value = badgeValue(source);
  const left = textWidth(LABEL) + 14;
  const right = textWidth(value.text) + 14;
  const width = left + right;
  const title = escapeText(`${LABEL}: ${value.text}`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" viewBox="0 0 ${width} 20" role="img" aria-label="${title}"><title>${title}</title>`
    + `<clipPath id="r"><rect width="${width}" height="20" rx="3"/></clipPath><g clip-path="url(#r)"><rect width="${left}" height="20" fill="#454541"/><rect x="${left}" width="${right}" height="20" fill="${value.colour}"/></g>`
    + `<g fill="#fff" text-anchor="middle" font-family="Verdana,'DejaVu Sans',sans-serif" font-size="11"><text x="${left / 2}" y="14">${LABEL}</text><text x="${left + right / 2}" y="14">${escapeText(value.text)}</text></g></svg>`;
}

/** The HTML a site copies to show its badge, linking to its result page. */
export function badgeSnippet(baseUrl: string, domain: string, alt: string): string {
  return `<a href="${escapeText(`${baseUrl}/b/${domain}`)}"><img src="${escapeText(`${baseUrl}/b/${domain}/badge.svg`)}" alt="${escapeText(alt)}" height="20"></a>`;
}
