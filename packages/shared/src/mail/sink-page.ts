/**
 * The development mail sink's page (docs/mail.md): GET /dev/mail lists what was "sent", newest first,
 * and /dev/mail/<file> shows one message as it was built. Only on a service with no SMTP set, and only
 * to a caller on this machine (the messages are customers' mail).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../errors/problem.js';
import { listSink, readSink } from './outbound-mail.js';

export const SINK_PAGE_PATH = '/dev/mail';

function fromThisMachine(request: FastifyRequest): boolean {
  const address = request.socket.remoteAddress ?? '';
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function installSinkPage(app: FastifyInstance, folder: string): void {
  app.get(SINK_PAGE_PATH, async (request, reply) => {
    if (!fromThisMachine(request)) throw new Problem('not_found', 'No resource here.');
    const rows = listSink(folder)
      .map((m) => `<tr><td>${escapeHtml(m.at)}</td><td>${escapeHtml(m.to)}</td><td><a href="${SINK_PAGE_PATH}/${m.file}">${escapeHtml(m.subject || '(no subject)')}</a></td></tr>`)
      .join('\n');
    reply.header('cache-control', 'no-store');
    reply.header('content-security-policy', "default-src 'none'");
    return reply
      .type('text/html; charset=utf-8')
      .send(`<!doctype html><meta charset="utf-8"><title>Mail sink</title><h1>Mail kept here (no SMTP set)</h1><p>${escapeHtml(folder)}</p><table><tr><th>When</th><th>To</th><th>Subject</th></tr>\n${rows}</table>`);
  });
  app.get(`${SINK_PAGE_PATH}/:file`, async (request, reply) => {
    if (!fromThisMachine(request)) throw new Problem('not_found', 'No resource here.');
    const text = readSink(folder, (request.params as { file: string }).file);
    if (text === null) throw new Problem('not_found', 'No such message in the sink.');
    reply.header('cache-control', 'no-store');
    return reply.type('text/plain; charset=utf-8').send(text);
  });
}
