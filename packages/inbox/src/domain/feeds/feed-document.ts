/**
 * Reads a product feed document into raw entries: Google Merchant Center RSS 2.0 or Atom XML (the
 * `g:` namespace, http://base.google.com/ns/1.0), or its tab-separated text variant with the same
 * attribute names as a header row. It maps nothing to products (see feed-entry.ts) and refuses a
 * document that is not a feed with a FeedDocumentError naming why.
 *
 * Safety: a DOCTYPE is refused before parsing, so no entity is ever defined or expanded (no
 * "billion laughs"); only XML's own entities and character references are decoded. The caller caps
 * the size (the fetch stops at FEED_MAX_BYTES); entries are capped here.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ParsedFeed, RawFeedEntry } from './feed-types.js';

/** More entries than any one shop's feed should hold; a larger document is refused whole, not cut. */
export const FEED_MAX_ENTRIES = 20_000;
/** Nesting deeper than this is not a product feed (and would only cost stack). */
const MAX_XML_DEPTH = 20;

export class FeedDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedDocumentError';
  }
}

export function parseFeedDocument(text: string): ParsedFeed {
  const body = text.replace(/^\uFEFF/, '');
  const start = body.trimStart();
  if (start.length === 0) throw new FeedDocumentError('the document is empty');
  if (start.startsWith('<')) return parseXmlFeed(body);
  return parseTsvFeed(body);
}

function parseXmlFeed(body: string): ParsedFeed {
  const head = body.slice(0, 2048).toLowerCase();
  if (/<!doctype\s+html|<html[\s>]/.test(head)) throw new FeedDocumentError('the URL serves an HTML page, not a product feed');
  if (/<!doctype|<!entity/i.test(body)) throw new FeedDocumentError('the document declares a DOCTYPE or entities, which product feeds never need; refused');
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new FeedDocumentError(`the document is not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: true,
    htmlEntities: true,
    maxNestedTags: MAX_XML_DEPTH,
  });
  let tree: Record<string, unknown>;
  try {
    tree = parser.parse(body) as Record<string, unknown>;
  } catch (error) {
    throw new FeedDocumentError(`the XML could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const rss = tree.rss;
  if (isRecord(rss)) {
    const channel = isRecord(rss.channel) ? rss.channel : null;
    if (!channel) throw new FeedDocumentError('the RSS document has no <channel>');
    const prefix = googlePrefix(rss);
    return { format: 'rss', entries: capped(asList(channel.item).map((item) => xmlEntry(item, prefix))) };
  }
  const atom = tree.feed;
  if (isRecord(atom)) {
    const prefix = googlePrefix(atom);
    return { format: 'atom', entries: capped(asList(atom.entry).map((entry) => xmlEntry(entry, prefix))) };
  }
  const root = Object.keys(tree).find((key) => !key.startsWith('?'));
  throw new FeedDocumentError(`the XML is not an RSS 2.0 or Atom feed (its root element is <${root ?? 'none'}>)`);
}

const GOOGLE_NAMESPACE = 'http://base.google.com/ns/1.0';

/** The prefix the document binds to Google's namespace; `g` when it uses one without declaring it. */
function googlePrefix(root: Record<string, unknown>): string {
  for (const [name, value] of Object.entries(root)) {
    const declared = /^@_xmlns:(.+)$/.exec(name);
    if (declared?.[1] && value === GOOGLE_NAMESPACE) return declared[1];
  }
  return 'g';
}

/**
 * One <item> or <entry>: each child element's text by its local name. Google's own attributes
 * (g:price) win over plain RSS/Atom elements of the same name (an Atom <id> is not the product id);
 * elements of other namespaces are ignored; the first of repeated names wins.
 */
function xmlEntry(node: unknown, prefix: string): RawFeedEntry {
  const google: Record<string, string> = Object.create(null) as Record<string, string>;
  const plain: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!isRecord(node)) return google;
  for (const [rawName, value] of Object.entries(node)) {
    if (rawName.startsWith('@_') || rawName === '#text') continue;
    const colon = rawName.indexOf(':');
    const target = colon === -1 ? plain : rawName.slice(0, colon) === prefix ? google : null;
    if (!target) continue;
    const name = rawName.slice(colon + 1).toLowerCase();
    if (Object.hasOwn(target, name)) continue;
    const text = name === 'link' ? linkOf(value) : textOf(value);
    if (text !== null && text !== '') target[name] = text;
  }
  for (const [name, text] of Object.entries(plain)) if (!Object.hasOwn(google, name)) google[name] = text;
  return google;
}

/** RSS writes <link>url</link>; Atom writes <link href="url" rel="alternate"/>, possibly several. */
function linkOf(value: unknown): string | null {
  const links = asList(value);
  const alternate = links.find((l) => isRecord(l) && typeof l['@_href'] === 'string' && (l['@_rel'] === undefined || l['@_rel'] === 'alternate'));
  if (isRecord(alternate)) return String(alternate['@_href']).trim();
  return textOf(links[0]);
}

function textOf(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'string') return first.trim();
  if (typeof first === 'number' || typeof first === 'boolean') return String(first);
  if (isRecord(first) && typeof first['#text'] === 'string') return first['#text'].trim();
  return null;
}

/** Google's tab-separated variant: a header row of attribute names, then one product per line. */
function parseTsvFeed(body: string): ParsedFeed {
  const lines = body.split(/\r\n|\n|\r/);
  const header = (lines[0] ?? '').split('\t').map((name) => unquote(name).trim().toLowerCase().replace(/^g:/, ''));
  if (header.length < 2 || !header.includes('id')) {
    throw new FeedDocumentError('the document is neither XML nor a tab-separated feed whose header row names an id column');
  }
  const entries: RawFeedEntry[] = [];
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const cells = line.split('\t');
    const entry: Record<string, string> = Object.create(null) as Record<string, string>;
    header.forEach((name, index) => {
      const cell = unquote(cells[index] ?? '').trim();
      if (name !== '' && cell !== '' && !Object.hasOwn(entry, name)) entry[name] = cell;
    });
    entries.push(entry);
  }
  return { format: 'tsv', entries: capped(entries) };
}

/** A cell may be wrapped in double quotes, with "" standing for one quote. */
function unquote(cell: string): string {
  const trimmed = cell.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) return trimmed.slice(1, -1).replace(/""/g, '"');
  return cell;
}

function capped(entries: RawFeedEntry[]): RawFeedEntry[] {
  if (entries.length > FEED_MAX_ENTRIES) {
    throw new FeedDocumentError(`the feed has ${entries.length} entries; at most ${FEED_MAX_ENTRIES} are imported, so nothing was`);
  }
  return entries;
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
