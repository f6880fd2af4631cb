/**
 * Which domains may register, and the origin their manifest lives at. Public host names only; with
 * the development setting `allowLocal`, an inbox on 127.0.0.1 (or localhost) with a port, over http.
 */
import { Problem, isLoopbackAddress } from '@svc/shared';
import { isIP } from 'node:net';

export const MAX_DOMAIN_LENGTH = 253;

export interface InstanceAddress {
  /** The registered name: a lowercase host name, or `127.0.0.1:<port>` in development. */
  domain: string;
  /** `https://<domain>`, or `http://127.0.0.1:<port>` in development. */
  origin: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function refuse(detail: string): Problem {
  return new Problem('bad_request', detail, { fields: [{ path: 'domain', problem: 'invalid', message: detail }] });
}

export function parseInstanceDomain(raw: unknown, allowLocal: boolean): InstanceAddress {
  if (typeof raw !== 'string' || raw.trim() === '') throw refuse('domain is required: the host name of the inbox, such as salon.example.');
  const value = raw.trim().toLowerCase().replace(/\.$/, '');
  if (value.length > MAX_DOMAIN_LENGTH) throw refuse(`domain is longer than ${MAX_DOMAIN_LENGTH} characters.`);
  const local = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost):(\d{1,5})$/.exec(value);
  if (local) {
    if (!allowLocal) throw refuse('A local address cannot be registered here; register the public domain of the inbox.');
    const port = Number(local[2]);
    if (port < 1 || port > 65_535) throw refuse('The port is out of range.');
    if (local[1] !== 'localhost' && !isLoopbackAddress(local[1] as string)) throw refuse('Only loopback addresses may be registered locally.');
    return { domain: value, origin: `http://${value}` };
  }
  if (value.includes(':') || value.includes('/') || isIP(value)) {
    throw refuse('domain is a host name such as salon.example: no scheme, port, path or IP address.');
  }
  const labels = value.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)) || /^\d+$/.test(labels[labels.length - 1] as string)) {
    throw refuse('domain is not a valid public host name.');
  }
  if (value === 'localhost' || value.endsWith('.localhost') || value.endsWith('.local') || value.endsWith('.internal')) {
    throw refuse('Internal names cannot be registered.');
  }
  return { domain: value, origin: `https://${value}` };
}
