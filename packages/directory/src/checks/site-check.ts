/**
 * One check of one site, start to end: robots.txt first (a site closed to our crawler is blocked;
 * one that cannot say is tried later), then the owner's own choice (/.well-known/svc-check.json
 * `{"result": "hidden"}` hides the result and ends the check), then the home page and every door.
 * What it gives is an observation to score, or why there is none.
 */
import { readPage } from '../domain/checks/html-page.js';
import type { SiteFacts, SiteObservation } from '../domain/checks/observation.js';
import { readSchemaOrg } from '../domain/checks/schema-org.js';
import { BudgetSpent, Findings, probeA2a, probeAcp, probeInbox, probeLlms, probeMcp, probeNlweb, probeOpenApi, probeUcp, reasonWords, webmcpDoor } from './door-probes.js';
import { SiteFetcher, type CrawlerSettings } from './site-fetcher.js';

export type SiteCheck =
  | { state: 'done'; observation: SiteObservation }
  | { state: 'hidden' | 'blocked' | 'failed' | 'not_checkable'; reason: string; usage: SiteObservation['usage']; url: string };

/** Where an owner tells the directory what to do with its result (docs/checks.md "Owners"). */
export const OWNER_FILE = '/.well-known/svc-check.json';

export async function checkSite(domain: string, settings: CrawlerSettings, nowMs: number): Promise<SiteCheck> {
  const fetcher = new SiteFetcher(domain, settings);
  const stop = (state: 'hidden' | 'blocked' | 'failed' | 'not_checkable', reason: string): SiteCheck => ({ state, reason, usage: { ...fetcher.usage }, url: `${fetcher.origin}/` });
  try {
    const robots = await fetcher.readRobots();
    if (robots.status === 'unreachable') {
      if (robots.reason === 'dns') return stop('not_checkable', 'The site cannot be reached: its name does not resolve.');
      if (robots.reason === 'blocked_address') return stop('not_checkable', 'The site cannot be checked: its name points at a private address, not the public internet.');
      return stop('failed', 'robots.txt could not be read (no answer, or a server error), so the crawler treats the site as closed for now and tries again later.');
    }
    if (fetcher.policy.closedToUs) return stop('blocked', `robots.txt disallows the site to our crawler (${settings.productToken}); nothing was read.`);
    const owner = await fetcher.get(OWNER_FILE, { maxBytes: 4 * 1024 });
    if (owner.ok && owner.status === 200) {
      try {
        const choice = JSON.parse(owner.body) as { result?: unknown };
        if (choice.result === 'hidden') return stop('hidden', 'The owner hides this result (its /.well-known/svc-check.json says hidden).');
      } catch {
        // Not a choice: the check goes on.
      }
    }
    return { state: 'done', observation: await observe(fetcher, nowMs) };
  } catch (error) {
    if (error instanceof BudgetSpent) return stop('failed', `The check stopped: ${error.message}.`);
    throw error;
  }
}

async function observe(fetcher: SiteFetcher, nowMs: number): Promise<SiteObservation> {
  const findings = new Findings();
  const facts: SiteFacts = { categoryTerms: [], software: false, business: false };
  let homeUrl = `${fetcher.origin}/`;
  let declaredMcp: string[] = [];
  let declaredOpenApi: string[] = [];
  let nlweb: string | null = null;
  try {
    const home = await fetcher.get('/', { accept: 'text/html, application/xhtml+xml', overflow: 'truncate', maxBytes: 1024 * 1024 });
    if (home.ok && home.status === 200 && /html|^$/.test(home.contentType)) {
      homeUrl = home.url;
      const page = readPage(home.body);
      const links = (rel: string) => page.links.filter((l) => l.rel === rel).map((l) => absolute(l.href, home.url)).filter((u): u is string => u !== null);
      declaredMcp = links('mcp').filter((u) => fetcher.onSite(u));
      declaredOpenApi = links('service-desc');
      nlweb = links('nlweb').find((u) => fetcher.onSite(u)) ?? null;
      const schema = readSchemaOrg(page.jsonLd, home.url);
      Object.assign(facts, schema.facts);
      findings.evidence.push(...schema.evidence);
      if (schema.readable) findings.readable.add('schema.org');
      if (page.lang && !facts.languages) facts.languages = { v: [page.lang], url: home.url, via: 'the page\'s language (html lang)' };
      if (!facts.name && facts.business && (page.siteName ?? page.title)) facts.name = { v: (page.siteName ?? page.title) as string, url: home.url, via: 'the page\'s title' };
      if (!facts.description && facts.business && page.description) facts.description = { v: page.description, url: home.url, via: 'the page\'s meta description' };
      webmcpDoor(findings, home.url, page.webmcpTools);
      findings.note('home', home.url, 'found', page.badJsonLd > 0 ? `${page.badJsonLd} JSON-LD blocks did not parse` : undefined);
    } else {
      findings.note('home', homeUrl, 'failed', home.ok ? (home.status === 200 ? 'answered with something other than a page' : `answered HTTP ${home.status}`) : reasonWords(home.reason));
    }
    const inbox = await probeInbox(fetcher, findings);
    if (inbox.mcp && !declaredMcp.includes(inbox.mcp)) declaredMcp.push(inbox.mcp);
    await probeMcp(fetcher, findings, declaredMcp);
    await probeA2a(fetcher, findings);
    await probeOpenApi(fetcher, findings, declaredOpenApi);
    await probeUcp(fetcher, findings);
    await probeAcp(fetcher, findings);
    await probeLlms(fetcher, findings);
    await probeNlweb(fetcher, findings, nlweb);
  } catch (error) {
    if (!(error instanceof BudgetSpent)) throw error;
    findings.note('budget', fetcher.origin, 'skipped', `the check stopped early: ${error.message}`);
  }
  if (findings.manifestProfile) {
    facts.business = true;
    if (!facts.name && findings.manifestProfile.name) facts.name = { v: findings.manifestProfile.name, url: findings.manifestProfile.url, via: 'inbox manifest profile' };
    if (!facts.description && findings.manifestProfile.description) facts.description = { v: findings.manifestProfile.description, url: findings.manifestProfile.url, via: 'inbox manifest profile' };
  }
  if (findings.doors.some((d) => !d.experimental && d.status === 'live')) facts.business = true;
  const aiOptOut = fetcher.policy.aiOptOutReason ?? fetcher.headerOptOut;
  return {
    domain: fetcher.domain,
    url: homeUrl,
    checkedAt: nowMs,
    doors: findings.doors,
    evidence: findings.evidence,
    // Nothing the site publishes is kept when it tells AI systems to keep away: only its doors are scored.
    facts: aiOptOut ? { categoryTerms: facts.categoryTerms, software: facts.software, business: facts.business } : facts,
    readable: [...findings.readable],
    aiOptOut,
    probes: findings.notes,
    usage: { ...fetcher.usage },
  };
}

function absolute(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}
