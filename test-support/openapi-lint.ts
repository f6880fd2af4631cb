/**
 * Lints an OpenAPI document the way client authors do: Redocly's `recommended` ruleset and
 * Spectral's `oas` ruleset. Each answers a list of "severity rule: message at path" lines; the
 * tests expect none (errors and warnings alike; hints and info are left out).
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';

const { Spectral, Document } = spectralCore;

export async function redoclyProblems(doc: unknown): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
  return problems
    .filter((p) => p.severity === 'error' || p.severity === 'warn')
    .map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
}

export async function spectralProblems(doc: unknown): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas as never] } as never);
  // A JSON string with the JSON parser, so paths and ranges are those of the served document.
  const { Json } = await import('@stoplight/spectral-parsers');
  const results = await spectral.run(new Document(JSON.stringify(doc, null, 1), Json, 'openapi.json'));
  // Severity: 0 error, 1 warning, 2 information, 3 hint.
  return results.filter((r) => r.severity <= 1).map((r) => `${r.severity === 0 ? 'error' : 'warn'} ${String(r.code)}: ${r.message} at ${r.path.join('.')}`);
}
