/**
 * Drives every tool an MCP server lists: first a scripted walk (steps with real arguments and the
 * answer each must give), then every listed tool the walk did not call, with empty arguments, which
 * must still answer in protocol: a result, or a refusal carrying a problem document. A tool added to
 * a server later is thus called too, and a scripted step for a tool the server no longer lists fails.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { textOf } from './mcp-client.js';

export interface ToolStep<State> {
  /** Which connection (door) the step is sent through. */
  door: string;
  tool: string;
  args: (state: State) => Record<string, unknown>;
  /** `ok`, or the problem code the call must be refused with. Defaults to `ok`. */
  expect?: string;
  /** Reads the structured answer: checks it and keeps what later steps need. */
  then?: (answer: any, state: State) => void;
}

export interface DriveOptions {
  /** The structured answer as the text content carries it (default: the text is the JSON). */
  parseText?: (text: string) => unknown;
  /** The code of a refusal for input that fails its schema (default `invalid_input`). */
  inputProblemCode?: string;
}

export interface Door {
  client: Client;
  tools: Tool[];
}

/** Checks one tool result against what the step expects; returns the structured answer. */
export function checkResult(result: CallToolResult, expected: string, label: string, options: DriveOptions = {}): any {
  const parse = options.parseText ?? ((text: string) => JSON.parse(text));
  if (expected === 'ok') {
    expect(result.isError, `${label}: ${textOf(result)}`).toBeFalsy();
    expect(result.structuredContent, `${label} has structured content`).toBeTypeOf('object');
    // Clients of revisions before structured content read the same answer from the text.
    expect(parse(textOf(result)), `${label}: the text carries the structured answer`).toEqual(result.structuredContent);
    return result.structuredContent;
  }
  expect(result.isError, `${label} is refused`).toBe(true);
  const error = (result.structuredContent as { error?: Record<string, unknown> } | undefined)?.error;
  expect(error, `${label}: the refusal is a problem document`).toMatchObject({ code: expected, status: expect.any(Number), title: expect.any(String) });
  expect(String(error?.type)).toMatch(new RegExp(`/problems/${expected}$`));
  expect(textOf(result).length, `${label}: the text says what is wrong`).toBeGreaterThan(0);
  return error;
}

/** Runs the scripted steps in order; returns, per door, the tools they called. */
export async function runSteps<State>(doors: Record<string, Door>, steps: ToolStep<State>[], state: State, options: DriveOptions = {}): Promise<Map<string, Set<string>>> {
  const called = new Map<string, Set<string>>(Object.keys(doors).map((name) => [name, new Set<string>()]));
  for (const step of steps) {
    const door = doors[step.door];
    if (!door) throw new Error(`no door ${step.door}`);
    const label = `${step.door} ${step.tool}`;
    expect(door.tools.map((t) => t.name), `${label} is listed`).toContain(step.tool);
    const result = (await door.client.callTool({ name: step.tool, arguments: step.args(state) })) as CallToolResult;
    const answer = checkResult(result, step.expect ?? 'ok', label, options);
    step.then?.(answer, state);
    called.get(step.door)?.add(step.tool);
  }
  return called;
}

/**
 * Calls every listed tool the steps left out, with `{}`: a tool that requires arguments must refuse
 * with the input problem naming them; a read-only tool that requires none must answer; any other
 * may answer or refuse, with a problem document. Returns the names it called.
 */
export async function callTheRest(door: Door, called: Set<string>, options: DriveOptions = {}): Promise<string[]> {
  const rest = door.tools.filter((tool) => !called.has(tool.name));
  for (const tool of rest) {
    const required = tool.inputSchema.required ?? [];
    const result = (await door.client.callTool({ name: tool.name, arguments: {} })) as CallToolResult;
    const refusedWith = String((result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code);
    let expected = result.isError ? refusedWith : 'ok';
    if (required.length > 0) expected = options.inputProblemCode ?? 'invalid_input';
    else if (tool.annotations?.readOnlyHint) expected = 'ok';
    const answer = checkResult(result, expected, `${tool.name} called with {}`, options);
    if (required.length > 0) {
      const paths = (answer.fields as { path: string }[] | undefined)?.map((field) => field.path) ?? [];
      expect(paths, `${tool.name}: the refusal names the required arguments`).toEqual(expect.arrayContaining(required));
    }
    called.add(tool.name);
  }
  expect([...called].sort()).toEqual(door.tools.map((t) => t.name).sort());
  return rest.map((tool) => tool.name);
}
