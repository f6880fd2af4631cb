/**
 * Each door a business can publish for agents, read where it is published (anchors.md §4): the
 * inbox manifest, an MCP server (card, or initialize and tools/list), an A2A agent card, OpenAPI
 * documents (parsed and validated by @readme/openapi-parser with external references off), UCP and
 * ACP manifests, NLWeb, llms.txt, and WebMCP tools declared in the home page. Reads only. What a
 * door declares becomes evidence for a capability; a door that is declared but does not answer as
 * it should is failing. Notes are in our words: nothing a site wrote reaches a note.
 */
import { validate } from '@readme/openapi-parser';
import { parse as parseYaml } from 'yaml';
import { parse as parseDomain } from 'tldts';
import type { CapabilityId } from '../domain/checks/capabilities.js';
import { capabilitiesOfName } from '../domain/checks/name-capabilities.js';
import type { Basis, Evidence, ProbeNote, SeenDoor, SeenDoorType } from '../domain/checks/observation.js';
import { cleanIdentifier, cleanText } from '../domain/checks/site-text.js';
import { readMcpServer } from './mcp-probe.js';
import { BudgetSpent, type FetchOutcome, type SiteFetcher } from './site-fetcher.js';

/** What the probes gather for one site. */
export class Findings {
  readonly doors: SeenDoor[] = [];
  readonly evidence: Evidence[] = [];
  readonly notes: ProbeNote[] = [];
  readonly readable = new Set<string>();
  /** Facts an inbox manifest gave (name, description), used when the page has none. */
  manifestProfile: { name?: string; description?: string; url: string } | null = null;

  door(door: SeenDoor): void {
    if (!this.doors.some((d) => d.type === door.type && d.url === door.url)) this.doors.push(door);
  }

  declare(capabilities: Iterable<CapabilityId>, basis: Basis, via: string, door: SeenDoor, options: { state?: 'yes' | 'partial'; experimental?: boolean } = {}): void {
    for (const capability of capabilities) {
      this.evidence.push({
        capability,
        state: options.state ?? 'yes',
        basis,
        via,
        door: { type: door.type, url: door.url },
        sourceUrl: door.declaredAt,
        ...(options.experimental ? { experimental: true } : {}),
      });
    }
  }

  note(probe: string, url: string, outcome: ProbeNote['outcome'], detail?: string): void {
    this.notes.push({ probe, url, outcome, ...(detail ? { detail } : {}) });
  }
}

const JSON_TYPES = /json|text\/plain|application\/octet-stream|^$/;

/** A JSON document at an address: 200, not a page, an object. */
async function readJson(fetcher: SiteFetcher, target: string, findings: Findings, probe: string, options: { declared?: boolean; maxBytes?: number } = {}) {
  const answer: FetchOutcome = options.declared ? await fetcher.getDeclared(target, { maxBytes: options.maxBytes ?? 256 * 1024 }) : await fetcher.get(target, { maxBytes: options.maxBytes ?? 256 * 1024 });
  if (!answer.ok) {
    findings.note(probe, answer.url, answer.reason === 'robots' ? 'skipped' : 'failed', reasonWords(answer.reason));
    return null;
  }
  if (answer.status === 404 || answer.status === 410) {
    findings.note(probe, answer.url, 'absent');
    return null;
  }
  if (answer.status !== 200) {
    findings.note(probe, answer.url, 'failed', `answered HTTP ${answer.status}`);
    return null;
  }
  if (!JSON_TYPES.test(answer.contentType) || /^\s*</.test(answer.body)) {
    findings.note(probe, answer.url, 'invalid', 'answered with a page, not a JSON document');
    return null;
  }
  try {
    const value = JSON.parse(answer.body) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
    return { doc: value as Record<string, unknown>, url: answer.url };
  } catch {
    findings.note(probe, answer.url, 'invalid', 'is not a JSON object');
    return null;
  }
}

export function reasonWords(reason: string): string {
  switch (reason) {
    case 'robots':
      return 'robots.txt disallows it for our crawler';
    case 'off_site':
      return 'it points off the site';
    case 'redirect_loop':
      return 'its redirects go round in a loop';
    case 'too_many_redirects':
      return 'too many redirects';
    case 'timeout':
      return 'no answer in time';
    case 'too_large':
      return 'the answer is larger than the check reads';
    case 'blocked_address':
      return 'the name points at a private address';
    case 'dns':
      return 'the name does not resolve';
    default:
      return 'the request failed';
  }
}

/** Whether a document names the site: an address in it whose registrable domain is the site's. */
function namesSite(fetcher: SiteFetcher, values: unknown[]): boolean {
  return values.some((value) => typeof value === 'string' && fetcher.onSite(value.startsWith('http') ? value : `https://${value}`));
}

function onSiteHost(fetcher: SiteFetcher, url: string): boolean {
  return fetcher.onSite(url);
}

function cleanUrl(value: unknown, base: string): string | null {
  if (typeof value !== 'string' || value.length > 2048) return null;
  try {
    const url = new URL(value, base);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return null;
    return url.toString();
  } catch {
    return null;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** /.well-known/agent-inbox.json: an inbox of this network (or one that speaks its manifest). */
export async function probeInbox(fetcher: SiteFetcher, findings: Findings): Promise<{ mcp: string | null }> {
  const read = await readJson(fetcher, '/.well-known/agent-inbox.json', findings, 'inbox');
  if (!read) return { mcp: null };
  const manifest = read.doc;
  const instance = typeof manifest.instance === 'string' ? manifest.instance : '';
  if (typeof manifest.spec !== 'string' || !manifest.spec.startsWith('svc-inbox/') || !fetcher.onSite(instance)) {
    findings.note('inbox', read.url, 'invalid', 'not an inbox manifest of this site');
    return { mcp: null };
  }
  const protocols = (manifest.protocols && typeof manifest.protocols === 'object' ? manifest.protocols : {}) as Record<string, unknown>;
  const rest = cleanUrl(protocols.rest, read.url);
  const door: SeenDoor = { type: 'inbox', url: rest && fetcher.onSite(rest) ? rest : instance, status: 'live', declaredAt: read.url, src: 'declared', protocol: String(manifest.spec).slice(0, 40) };
  findings.door(door);
  const types = Array.isArray(manifest.item_types) ? manifest.item_types.filter((t): t is string => typeof t === 'string') : [];
  const caps = new Set<CapabilityId>(['find', 'catalogue']);
  if (types.includes('message')) caps.add('message');
  if (types.includes('booking')) ['book', 'availability', 'cancel'].forEach((c) => caps.add(c as CapabilityId));
  if (types.includes('order')) ['order', 'cancel', 'track'].forEach((c) => caps.add(c as CapabilityId));
  if (types.includes('quote_request')) caps.add('negotiate');
  if (types.includes('refund')) caps.add('return');
  findings.declare(caps, 'item_types', `inbox manifest item_types: ${types.filter((t) => /^[a-z_]{1,20}$/.test(t)).join(', ') || 'none'}`, door);
  const keys = manifest.receipt_keys as { keys?: unknown[] } | undefined;
  if (Array.isArray(keys?.keys) && keys.keys.length > 0) findings.declare(['receipt'], 'manifest', 'inbox manifest receipt_keys (signed receipts)', door);
  const profile = (manifest.profile && typeof manifest.profile === 'object' ? manifest.profile : {}) as Record<string, unknown>;
  const name = cleanText(profile.name, 120);
  const description = cleanText(profile.description, 500);
  findings.manifestProfile = { ...(name ? { name } : {}), ...(description ? { description } : {}), url: read.url };
  findings.note('inbox', read.url, 'found');
  const mcp = cleanUrl(protocols.mcp, read.url);
  return { mcp: mcp && fetcher.onSite(mcp) ? mcp : null };
}

/** Addresses an MCP server card names (url, endpoint, remotes[].url, transports[].url). */
function cardEndpoints(card: Record<string, unknown>, base: string): string[] {
  const out: string[] = [];
  const take = (value: unknown) => {
    const url = cleanUrl(value, base);
    if (url && !out.includes(url)) out.push(url);
  };
  for (const key of ['url', 'endpoint', 'uri']) take(card[key]);
  for (const key of ['remotes', 'transports', 'endpoints']) {
    const list = card[key];
    for (const entry of Array.isArray(list) ? list : []) if (entry && typeof entry === 'object') for (const k of ['url', 'endpoint', 'uri']) take((entry as Record<string, unknown>)[k]);
  }
  return out.slice(0, 3);
}

/** An MCP server: its card (SEP-2127 path, and the older /.well-known/mcp.json), then initialize and tools/list at the endpoint. */
export async function probeMcp(fetcher: SiteFetcher, findings: Findings, declared: string[]): Promise<void> {
  const candidates: { url: string; from: string; src: 'declared' | 'seen' }[] = [];
  for (const path of ['/.well-known/mcp/server-card.json', '/.well-known/mcp.json']) {
    const card = await readJson(fetcher, path, findings, 'mcp-card');
    if (!card) continue;
    for (const url of cardEndpoints(card.doc, card.url)) candidates.push({ url, from: card.url, src: 'declared' });
    findings.note('mcp-card', card.url, 'found');
    break;
  }
  for (const url of declared) if (!candidates.some((c) => c.url === url)) candidates.push({ url, from: fetcher.origin, src: 'declared' });
  const conventional = `${fetcher.origin}/mcp`;
  const guessed = candidates.length === 0;
  if (guessed) candidates.push({ url: conventional, from: conventional, src: 'seen' });
  for (const candidate of candidates.slice(0, 2)) {
    if (!fetcher.mayPost(candidate.url, candidate.url)) continue;
    if (!fetcher.onSite(candidate.url) && !fetcher.policy.allows(candidate.url)) continue;
    const reading = await readMcpServer(fetcher, candidate.url, (u) => fetcher.mayPost(u, candidate.url));
    const offHost = !onSiteHost(fetcher, candidate.url);
    if (reading.ok && offHost && !namesSite(fetcher, [reading.websiteUrl])) {
      findings.note('mcp', candidate.url, 'invalid', 'an MCP server on another host that does not name this site');
      continue;
    }
    if (!reading.ok) {
      // A server the site declared and that does not answer is a failing door; a guess that finds nothing is no door.
      if (!guessed) findings.door({ type: 'mcp', url: candidate.url, status: 'failing', declaredAt: candidate.from, src: 'declared', note: 'declared, but did not answer initialize and tools/list' });
      findings.note('mcp', candidate.url, guessed ? 'absent' : 'failed', 'no MCP answer to initialize and tools/list');
      continue;
    }
    const door: SeenDoor = {
      type: 'mcp',
      url: candidate.url,
      status: 'live',
      declaredAt: candidate.from,
      src: 'seen',
      protocol: reading.protocolVersion ? `mcp/${reading.protocolVersion}` : 'mcp',
    };
    findings.door(door);
    for (const tool of reading.tools) findings.declare(tool.capabilities, 'tool_name', `MCP tool ${tool.name}${tool.readOnly ? ' (read-only)' : ''}`, door);
    if (reading.tools.length > 0) findings.readable.add('mcp');
    findings.note('mcp', candidate.url, 'found', `${reading.tools.length} tools listed`);
    return;
  }
}

/** An A2A agent card (/.well-known/agent-card.json, or agent.json of A2A 0.3): skills, and AP2 payments. */
export async function probeA2a(fetcher: SiteFetcher, findings: Findings): Promise<void> {
  for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
    const read = await readJson(fetcher, path, findings, 'a2a');
    if (!read) continue;
    const card = read.doc;
    const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
    const first = interfaces[0] as Record<string, unknown> | undefined;
    const url = cleanUrl(card.url, read.url) ?? cleanUrl(first?.url, read.url);
    if (typeof card.name !== 'string' || !url || !Array.isArray(card.skills)) {
      findings.note('a2a', read.url, 'invalid', 'not an agent card (name, url and skills)');
      continue;
    }
    const version = typeof card.protocolVersion === 'string' ? card.protocolVersion : typeof first?.protocolVersion === 'string' ? (first.protocolVersion as string) : null;
    const door: SeenDoor = { type: 'a2a', url, status: 'live', declaredAt: read.url, src: 'declared', protocol: version && /^[0-9.]{1,10}$/.test(version) ? `a2a/${version}` : 'a2a' };
    findings.door(door);
    for (const skill of card.skills.slice(0, 100)) {
      if (!skill || typeof skill !== 'object') continue;
      const s = skill as Record<string, unknown>;
      const id = cleanIdentifier(s.id) ?? cleanIdentifier(typeof s.name === 'string' ? s.name.replace(/\s+/g, '_') : null);
      if (!id) continue;
      const tags = Array.isArray(s.tags) ? s.tags.filter((t): t is string => typeof t === 'string').slice(0, 10) : [];
      const words = `${id} ${typeof s.name === 'string' ? s.name : ''} ${tags.join(' ')}`;
      findings.declare(capabilitiesOfName(words.slice(0, 300)), 'skill', `A2A skill ${id}`, door);
    }
    const extensions = (card.capabilities as { extensions?: unknown[] } | undefined)?.extensions;
    if (Array.isArray(extensions) && extensions.some((e) => e && typeof e === 'object' && /ap2/i.test(String((e as Record<string, unknown>).uri ?? '')))) {
      findings.declare(['pay'], 'protocol', 'A2A card declares the AP2 payments extension', door);
    }
    findings.note('a2a', read.url, 'found');
    return;
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** OpenAPI documents: declared (RFC 8631 service-desc, RFC 9727 api-catalog) or at /openapi.json; parsed and validated, operations read. */
export async function probeOpenApi(fetcher: SiteFetcher, findings: Findings, declared: string[]): Promise<void> {
  const candidates = [...declared];
  const catalog = await readJson(fetcher, '/.well-known/api-catalog', findings, 'api-catalog');
  if (catalog) {
    const linkset = catalog.doc.linkset;
    for (const entry of Array.isArray(linkset) ? linkset : []) {
      const descs = entry && typeof entry === 'object' ? (entry as Record<string, unknown>)['service-desc'] : null;
      for (const d of Array.isArray(descs) ? descs : []) {
        const href = cleanUrl((d as Record<string, unknown>)?.href, catalog.url);
        if (href && !candidates.includes(href)) candidates.push(href);
      }
    }
  }
  if (candidates.length === 0) candidates.push(`${fetcher.origin}/openapi.json`);
  for (const target of candidates.slice(0, 2)) {
    const answer = await fetcher.getDeclared(target, { accept: 'application/json, application/yaml;q=0.9', maxBytes: 1024 * 1024 });
    if (!answer.ok || answer.status !== 200) {
      findings.note('openapi', target, answer.ok ? (answer.status === 404 ? 'absent' : 'failed') : 'failed', answer.ok ? `answered HTTP ${answer.status}` : reasonWords(answer.reason));
      continue;
    }
    if (/html/.test(answer.contentType) || /^\s*</.test(answer.body)) {
      findings.note('openapi', target, 'invalid', 'answered with a page, not an OpenAPI document');
      continue;
    }
    let doc: unknown;
    try {
      doc = /^\s*[{[]/.test(answer.body) ? JSON.parse(answer.body) : parseYaml(answer.body, { maxAliasCount: 20 });
    } catch {
      findings.note('openapi', target, 'invalid', 'is neither JSON nor YAML');
      continue;
    }
    if (!doc || typeof doc !== 'object' || (typeof (doc as Record<string, unknown>).openapi !== 'string' && typeof (doc as Record<string, unknown>).swagger !== 'string')) {
      findings.note('openapi', target, 'invalid', 'is not an OpenAPI document');
      continue;
    }
    const api = doc as Record<string, unknown>;
    const servers = Array.isArray(api.servers) ? api.servers : [];
    const declaredServer = cleanUrl((servers[0] as Record<string, unknown> | undefined)?.url, answer.url);
    // A server on a private address or another scheme is no door of the site: the document's own host stands for it.
    const serverUrl = declaredServer && fetcher.mayPost(declaredServer, declaredServer) ? declaredServer : new URL('/', answer.url).toString();
    const info = (api.info ?? {}) as Record<string, unknown>;
    const offHost = !fetcher.onSite(answer.url);
    if (offHost && !namesSite(fetcher, [serverUrl, ...servers.map((s) => (s as Record<string, unknown>)?.url), (info.contact as Record<string, unknown> | undefined)?.url, info.termsOfService])) {
      findings.note('openapi', target, 'invalid', 'an OpenAPI document on another host that does not name this site');
      continue;
    }
    let valid = false;
    try {
      const result = await validate(structuredClone(api) as never, { resolve: { external: false, file: false }, dereference: { circular: 'ignore' }, timeoutMs: 2_000 });
      valid = result.valid;
    } catch {
      valid = false;
    }
    const version = String(api.openapi ?? api.swagger).slice(0, 10);
    const door: SeenDoor = {
      type: 'openapi',
      url: serverUrl,
      status: valid ? 'live' : 'failing',
      declaredAt: answer.url,
      src: 'declared',
      protocol: /^[0-9.]+$/.test(version) ? `openapi/${version}` : 'openapi',
      ...(valid ? {} : { note: 'the OpenAPI document does not validate' }),
    };
    findings.door(door);
    if (valid) {
      const paths = (api.paths ?? {}) as Record<string, Record<string, unknown>>;
      let count = 0;
      for (const [path, item] of Object.entries(paths)) {
        if (!item || typeof item !== 'object') continue;
        for (const method of METHODS) {
          const op = item[method] as Record<string, unknown> | undefined;
          if (!op || typeof op !== 'object' || ++count > 500) continue;
          const id = cleanIdentifier(op.operationId);
          const pathWords = path.replace(/\{[^}]*\}/g, ' ').slice(0, 200);
          findings.declare(capabilitiesOfName(`${id ?? ''} ${pathWords}`, { method }), 'operation', `OpenAPI operation ${id ?? `${method.toUpperCase()} ${cleanIdentifier(path.replace(/[{}]/g, '')) ?? 'path'}`}`, door);
        }
      }
      findings.readable.add('openapi');
    }
    findings.note('openapi', answer.url, valid ? 'found' : 'invalid', valid ? undefined : 'does not validate as OpenAPI');
    return;
  }
}

/** Capability names a UCP or ACP manifest lists (strings, objects with a name, or keys). */
function namesIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => (typeof v === 'string' ? [v] : v && typeof v === 'object' && typeof (v as Record<string, unknown>).name === 'string' ? [(v as Record<string, unknown>).name as string] : []));
  if (value && typeof value === 'object') return Object.keys(value);
  return [];
}

function commerceCapabilities(names: string[]): Set<CapabilityId> {
  const caps = new Set<CapabilityId>();
  for (const raw of names.slice(0, 50)) {
    const name = raw.toLowerCase();
    if (/checkout/.test(name)) caps.add('order');
    if (/\border\b|\.order$|orders/.test(name)) caps.add('track');
    if (/catalog|product|feed/.test(name)) caps.add('catalogue');
    if (/delegate[_-]?payment|payment/.test(name)) caps.add('pay');
    if (/fulfil/.test(name)) caps.add('track');
    if (/return|refund/.test(name)) caps.add('return');
    if (/cancel/.test(name)) caps.add('cancel');
  }
  return caps;
}

/** UCP (/.well-known/ucp): its services' endpoints, capabilities, and payment handlers. */
export async function probeUcp(fetcher: SiteFetcher, findings: Findings): Promise<void> {
  const read = await readJson(fetcher, '/.well-known/ucp', findings, 'ucp');
  if (!read) return;
  const root = (read.doc.ucp && typeof read.doc.ucp === 'object' ? read.doc.ucp : read.doc) as Record<string, unknown>;
  const services = (root.services && typeof root.services === 'object' ? root.services : {}) as Record<string, Record<string, unknown>>;
  let endpoint: string | null = null;
  for (const service of Object.values(services)) {
    for (const transport of ['rest', 'mcp', 'a2a']) {
      const t = service?.[transport] as Record<string, unknown> | undefined;
      endpoint ??= cleanUrl(t?.endpoint, read.url);
    }
  }
  const names = [...namesIn(root.capabilities), ...namesIn(read.doc.capabilities)];
  if (names.length === 0 && Object.keys(services).length === 0) {
    findings.note('ucp', read.url, 'invalid', 'not a UCP profile (no services or capabilities)');
    return;
  }
  const version = typeof root.version === 'string' && /^[0-9-]{4,12}$/.test(root.version) ? root.version : null;
  const door: SeenDoor = { type: 'ucp', url: endpoint && (fetcher.onSite(endpoint) || fetcher.mayPost(endpoint, endpoint)) ? endpoint : read.url, status: 'live', declaredAt: read.url, src: 'declared', protocol: version ? `ucp/${version}` : 'ucp' };
  findings.door(door);
  const caps = commerceCapabilities(names);
  const payment = (read.doc.payment ?? root.payment) as Record<string, unknown> | undefined;
  const handlers = payment?.handlers ?? root.payment_handlers;
  if (Array.isArray(handlers) ? handlers.length > 0 : handlers && typeof handlers === 'object' && Object.keys(handlers).length > 0) caps.add('pay');
  findings.declare(caps, 'protocol', 'UCP profile capabilities', door);
  findings.readable.add('ucp');
  findings.note('ucp', read.url, 'found');
}

/** ACP (/.well-known/acp.json, the protocol's experimental discovery document): checkout, delegated payment, product feed. */
export async function probeAcp(fetcher: SiteFetcher, findings: Findings): Promise<void> {
  const read = await readJson(fetcher, '/.well-known/acp.json', findings, 'acp');
  if (!read) return;
  const doc = read.doc;
  const endpoint = cleanUrl(doc.api_base_url ?? doc.base_url ?? doc.endpoint, read.url);
  const names = [...namesIn(doc.capabilities), ...namesIn(doc.endpoints)];
  if (!endpoint && names.length === 0) {
    findings.note('acp', read.url, 'invalid', 'not an ACP manifest (no endpoint or capabilities)');
    return;
  }
  const version = typeof doc.api_version === 'string' && /^[0-9-]{4,12}$/.test(doc.api_version) ? doc.api_version : null;
  const door: SeenDoor = { type: 'acp', url: endpoint ?? read.url, status: 'live', declaredAt: read.url, src: 'declared', protocol: version ? `acp/${version}` : 'acp' };
  if (endpoint && !fetcher.onSite(endpoint) && !namesSite(fetcher, [doc.merchant_url, doc.website])) {
    findings.note('acp', read.url, 'invalid', 'an ACP endpoint on another host that the manifest does not tie to this site');
    return;
  }
  findings.door(door);
  findings.declare(commerceCapabilities(names), 'protocol', 'ACP manifest capabilities', door);
  findings.note('acp', read.url, 'found');
}

/** llms.txt: a Markdown summary for language models (readable, never a door). */
export async function probeLlms(fetcher: SiteFetcher, findings: Findings): Promise<void> {
  const answer = await fetcher.get('/llms.txt', { accept: 'text/plain, text/markdown', maxBytes: 200 * 1024, overflow: 'truncate' });
  if (!answer.ok || answer.status !== 200) {
    findings.note('llms.txt', `${fetcher.origin}/llms.txt`, answer.ok && answer.status === 404 ? 'absent' : 'failed');
    return;
  }
  const first = answer.body.split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  if (/html/.test(answer.contentType) || !/^#\s+\S/.test(first)) {
    findings.note('llms.txt', answer.url, 'invalid', 'not a Markdown llms.txt');
    return;
  }
  findings.readable.add('llms.txt');
  findings.note('llms.txt', answer.url, 'found');
}

/** NLWeb: an /ask endpoint the page declares (link rel="nlweb"), asked one question as a read; live when it answers with results. */
export async function probeNlweb(fetcher: SiteFetcher, findings: Findings, declared: string | null): Promise<void> {
  if (!declared) return;
  const url = new URL(declared);
  url.searchParams.set('query', 'what do you offer');
  url.searchParams.set('streaming', 'false');
  const answer = await fetcher.get(url.toString(), { maxBytes: 256 * 1024 });
  const ok = answer.ok && answer.status === 200 && !/html/.test(answer.contentType) && (() => {
    try {
      return Array.isArray((JSON.parse(answer.body) as Record<string, unknown>).results);
    } catch {
      return false;
    }
  })();
  findings.door({ type: 'nlweb', url: declared, status: ok ? 'live' : 'failing', declaredAt: fetcher.origin, src: 'declared', protocol: 'nlweb', ...(ok ? {} : { note: 'declared, but /ask gave no results' }) });
  if (ok) findings.readable.add('nlweb');
  findings.note('nlweb', declared, ok ? 'found' : 'failed');
}

/** WebMCP tools a page declares (experimental: scored as partial at most, never a level). */
export function webmcpDoor(findings: Findings, pageUrl: string, tools: string[]): void {
  if (tools.length === 0) return;
  const door: SeenDoor = { type: 'webmcp', url: pageUrl, status: 'live', declaredAt: pageUrl, src: 'seen', protocol: 'webmcp', experimental: true };
  findings.door(door);
  for (const tool of tools) findings.declare(capabilitiesOfName(tool), 'page', `WebMCP tool ${tool}`, door, { state: 'partial', experimental: true });
}

export type DoorProbeType = SeenDoorType;
export { BudgetSpent, iso, parseDomain };
