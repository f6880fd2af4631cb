/**
 * A page read as markup (htmlparser2), never run: its JSON-LD blocks, language, title and meta
 * description, the links it declares for agents (an MCP server, an OpenAPI document by RFC 8631's
 * service-desc, an NLWeb endpoint, llms.txt), and the WebMCP tools it declares: `<form toolname>`
 * and the names passed to `registerTool(...)` in its inline scripts, read as text.
 */
import { Parser } from 'htmlparser2';
import { cleanIdentifier, cleanText } from './site-text.js';

export interface PageReading {
  lang: string | null;
  title: string | null;
  description: string | null;
  siteName: string | null;
  jsonLd: unknown[];
  /** JSON-LD blocks that did not parse. */
  badJsonLd: number;
  links: { rel: string; href: string }[];
  webmcpTools: string[];
}

const MAX_JSON_LD = 20;
const MAX_JSON_LD_BYTES = 256 * 1024;
const AGENT_RELS = new Set(['mcp', 'service-desc', 'nlweb', 'llms', 'agent-card', 'api-catalog']);
const REGISTER_TOOL = /registerTool\s*\(\s*\{[^}]*?\bname\s*:\s*["'`]([A-Za-z0-9_.-]{1,64})["'`]/g;

export function readPage(html: string): PageReading {
  const reading: PageReading = { lang: null, title: null, description: null, siteName: null, jsonLd: [], badJsonLd: 0, links: [], webmcpTools: [] };
  let inScript: 'json-ld' | 'inline' | null = null;
  let inTitle = false;
  let buffer = '';
  const tools = new Set<string>();
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'html' && attributes.lang && /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(attributes.lang)) reading.lang = attributes.lang.toLowerCase();
        if (name === 'script') {
          const type = (attributes.type ?? '').toLowerCase().trim();
          inScript = type === 'application/ld+json' ? 'json-ld' : attributes.src === undefined && (type === '' || type.includes('javascript') || type === 'module') ? 'inline' : null;
          buffer = '';
        }
        if (name === 'title') {
          inTitle = true;
          buffer = '';
        }
        if (name === 'meta') {
          const key = (attributes.name ?? attributes.property ?? '').toLowerCase();
          if (key === 'description') reading.description ??= cleanText(attributes.content, 500);
          if (key === 'og:site_name') reading.siteName ??= cleanText(attributes.content, 120);
        }
        if (name === 'link' && attributes.href) {
          for (const rel of (attributes.rel ?? '').toLowerCase().split(/\s+/)) {
            if (AGENT_RELS.has(rel) && reading.links.length < 20) reading.links.push({ rel, href: attributes.href });
          }
        }
        if (name === 'form' && attributes.toolname) {
          const tool = cleanIdentifier(attributes.toolname);
          if (tool) tools.add(tool);
        }
      },
      ontext(text) {
        if ((inScript || inTitle) && buffer.length < MAX_JSON_LD_BYTES) buffer += text;
      },
      onclosetag(name) {
        if (name === 'script' && inScript) {
          if (inScript === 'json-ld' && reading.jsonLd.length < MAX_JSON_LD) {
            try {
              reading.jsonLd.push(JSON.parse(buffer));
            } catch {
              reading.badJsonLd += 1;
            }
          } else if (inScript === 'inline') {
            for (const match of buffer.matchAll(REGISTER_TOOL)) if (tools.size < 50) tools.add(match[1] as string);
          }
          inScript = null;
        }
        if (name === 'title' && inTitle) {
          reading.title = cleanText(buffer, 120);
          inTitle = false;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  reading.webmcpTools = [...tools];
  return reading;
}
