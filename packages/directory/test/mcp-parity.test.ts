/**
 * Tool parity (directory spec §1): each tool of /mcp, as the SDK client lists it, against its REST
 * read in the served /openapi.json: same name, hints, input and output (the refusal `{error}` being
 * the documented addition). Every read is a tool but the evidence log's proofs and the hours' statements
 * (docs/verifiable-order.md); writes (registration, pings) stay REST-only.
 */
import { LOG_OPERATIONS } from '../src/operations/log-operations.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../../../test-support/mcp-client.js';
import { restContracts } from '../../../test-support/openapi-contract.js';
import { expectToolMatchesRest } from '../../../test-support/tool-parity.js';
import { startDirectory, type TestDirectory } from './support/harness.js';

let t: TestDirectory;
let connection: McpConnection;

beforeAll(async () => {
  t = await startDirectory();
  connection = await connectMcp(`${t.baseUrl}/mcp`);
});
afterAll(async () => {
  await connection?.close();
  await t?.close();
});

describe('the tools of the directory /mcp', () => {
  it('are the REST reads and check_business, one for one, with the same contract', async () => {
    const openapi = await t.get('/openapi.json');
    expect(openapi.status).toBe(200);
    const contracts = restContracts(openapi.body);
    // The evidence log's and the hours' proofs are for programs that check them, not tools (docs/verifiable-order.md).
    const restOnly = new Set([...LOG_OPERATIONS.map((op) => op.name), 'get_log_checkpoint', 'get_log_tile']);
    const reads = [...contracts.values()].filter((c) => c.method === 'GET' && !restOnly.has(c.operationId)).map((c) => c.operationId);
    const { tools } = await connection.client.listTools();
    // Asking for a check is the one write the MCP door offers (registration and pings stay REST-only).
    expect(tools.map((tool) => tool.name).sort()).toEqual([...reads, 'check_business'].sort());
    for (const tool of tools) {
      expectToolMatchesRest(tool, contracts.get(tool.name), openapi.body.components.schemas.Problem);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(tool.name !== 'check_business');
    }
  });
});
