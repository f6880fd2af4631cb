/**
 * Tool parity (inbox spec §1, §4): each tool of /mcp and /mcp/owner, as the SDK client lists it,
 * against its REST operation in the served /openapi.json: same name, hints, input and output (the
 * refusal `{error}` being the documented addition). The doors are compared as served, not as built.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../../../test-support/mcp-client.js';
import { restContracts, type RestContract } from '../../../test-support/openapi-contract.js';
import { expectToolMatchesRest } from '../../../test-support/tool-parity.js';
import { startInbox, type TestInbox } from './support/harness.js';

let t: TestInbox;
let contracts: Map<string, RestContract>;
let problemSchema: unknown;
const connections: McpConnection[] = [];

beforeAll(async () => {
  t = await startInbox();
  const openapi = await t.request('GET', '/openapi.json');
  expect(openapi.status).toBe(200);
  contracts = restContracts(openapi.body);
  problemSchema = openapi.body.components.schemas.Problem;
});
afterAll(async () => {
  for (const connection of connections) await connection.close();
  await t.close();
});

async function toolsAt(path: string, headers: Record<string, string> = {}) {
  const connection = await connectMcp(`${t.baseUrl}${path}`, { headers });
  connections.push(connection);
  return (await connection.client.listTools()).tools;
}

describe.each([
  ['/mcp', 'public'],
  ['/mcp/owner', 'owner'],
])('the tools of %s', (path, audience) => {
  it(`are the ${audience} REST operations, one for one, with the same contract`, async () => {
    const tools = await toolsAt(path, audience === 'owner' ? { authorization: `Bearer ${t.ownerKey}` } : {});
    const restNames = [...contracts.values()].filter((c) => c.audience === audience).map((c) => c.operationId);
    expect(tools.map((tool) => tool.name).sort()).toEqual(restNames.sort());
    for (const tool of tools) expectToolMatchesRest(tool, contracts.get(tool.name), problemSchema);
  });
});

describe('idempotency keys', () => {
  it('are an idempotency_key argument exactly where REST takes an Idempotency-Key', async () => {
    const tools = [...(await toolsAt('/mcp')), ...(await toolsAt('/mcp/owner', { authorization: `Bearer ${t.ownerKey}` }))];
    const keyed = tools.filter((tool) => contracts.get(tool.name)?.headers.includes('Idempotency-Key'));
    expect(keyed.length).toBeGreaterThan(10);
    for (const tool of tools) {
      const rest = contracts.get(tool.name);
      expect(Object.keys(tool.inputSchema.properties ?? {}).includes('idempotency_key'), tool.name).toBe(rest?.headers.includes('Idempotency-Key'));
      if (tool.annotations?.readOnlyHint) expect(tool.annotations.destructiveHint, `${tool.name} is read-only`).toBe(false);
    }
  });
});
