/**
 * One MCP tool against its REST operation as the served OpenAPI document describes it: the same
 * name, title, description and hints; the same input fields with the same schemas and the same
 * required ones; the same success answer, with the refusal `{error: Problem}` as the only addition.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { RestContract } from './openapi-contract.js';

export function expectToolMatchesRest(tool: Tool, rest: RestContract | undefined, problemSchema: unknown): void {
  const label = tool.name;
  expect(rest, `${label} has a REST operation`).toBeDefined();
  if (!rest) return;
  expect(tool.title, label).toBe(rest.summary);
  expect(tool.description, label).toBe(rest.description);
  expect(tool.annotations, label).toEqual({ title: rest.summary, ...rest.annotations });
  for (const hint of ['readOnlyHint', 'idempotentHint', 'destructiveHint'] as const) {
    expect(typeof tool.annotations?.[hint], `${label} ${hint}`).toBe('boolean');
  }

  expect(tool.inputSchema.type).toBe('object');
  expect(tool.inputSchema.properties ?? {}, `${label} input fields`).toEqual(rest.inputProperties);
  expect([...(tool.inputSchema.required ?? [])].sort(), `${label} required fields`).toEqual([...rest.inputRequired].sort());

  expect(rest.outputs.length, `${label} documents a success answer`).toBeGreaterThan(0);
  const output = tool.outputSchema as { type?: string; anyOf?: unknown[] } | undefined;
  expect(output, `${label} publishes an outputSchema`).toBeDefined();
  expect(output?.type).toBe('object');
  expect(output?.anyOf).toHaveLength(2);
  for (const answer of rest.outputs) expect(output?.anyOf?.[0], `${label} answer`).toEqual(answer);
  expect(output?.anyOf?.[1], `${label} refusal`).toMatchObject({ type: 'object', required: ['error'], properties: { error: problemSchema } });
}
