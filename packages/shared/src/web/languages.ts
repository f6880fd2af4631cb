/**
 * Which of the pages' languages to answer in: the one asked for (`?lang=`, then a cookie the page
 * set), else the default the caller gives (the business's own language in the owner app), else the
 * first. Only the base language counts: pt-PT and pt-BR both read the Portuguese pages.
 */
export function pickLanguage<L extends string>(supported: readonly L[], ...wishes: (string | null | undefined)[]): L {
  for (const wish of wishes) {
    if (typeof wish !== 'string') continue;
    const base = wish.trim().toLowerCase().split(/[-_]/)[0] ?? '';
    const found = supported.find((language) => language === base);
    if (found) return found;
  }
  return supported[0] as L;
}

/** Reads one cookie from a Cookie header (RFC 6265 §5.4): the first with that name. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
