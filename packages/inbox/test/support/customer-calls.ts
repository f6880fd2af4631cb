/**
 * Small helpers for the public (customer) operation tests: problem-document checks and the calls a
 * customer's agent and the owner make most. Everything goes over real HTTP through the harness.
 */
import { expect } from 'vitest';
import type { ApiResponse, TestInbox } from './harness.js';

/** Asserts an RFC 9457 problem document with the given status and code (inbox spec §7). */
export function expectProblem(r: ApiResponse, status: number, code: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
  expect(r.body.title.length).toBeGreaterThan(0);
  expect(r.body.detail.length).toBeGreaterThan(0);
  expect(r.body.type).toMatch(new RegExp(`^https?://.+/problems/${code}$`));
}

/** Asserts an invalid_input problem that names `path` in fields[] with the given problem kind. */
export function expectFieldProblem(r: ApiResponse, path: string, problem: 'missing' | 'invalid' = 'invalid'): void {
  expectProblem(r, 422, 'invalid_input');
  expect(Array.isArray(r.body.fields)).toBe(true);
  for (const field of r.body.fields) {
    expect(field).toEqual({ path: expect.any(String), problem: expect.stringMatching(/^(missing|invalid)$/), message: expect.any(String) });
  }
  expect(r.body.fields).toContainEqual(expect.objectContaining({ path, problem }));
}

export function booking(serviceId: string, startTime: string, extra: Record<string, unknown> = {}, contactName = 'Ana Silva') {
  return { payload: { serviceId, startTime, ...extra }, contact: { name: contactName, email: 'ana@example.com' } };
}

/** Creates a booking and returns the created answer (asserting 201). */
export async function createBooking(t: TestInbox, serviceId: string, startTime: string, extra: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/v1/bookings', { body: booking(serviceId, startTime, extra) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; accessToken: string; version: number; state: string; [k: string]: any };
}

/** Fires an owner transition and asserts it succeeded. */
export async function ownerMove(t: TestInbox, itemId: string, event: string, input?: Record<string, unknown>) {
  const r = await t.owner('POST', `/v1/owner/items/${itemId}/transitions`, { body: input ? { event, input } : { event } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** The customer's status view with the access token in the x-access-token header. */
export async function status(t: TestInbox, itemId: string, token: string) {
  const r = await t.request('GET', `/v1/items/${itemId}`, { headers: { 'x-access-token': token } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

export async function ownerItem(t: TestInbox, itemId: string) {
  const r = await t.owner('GET', `/v1/owner/items/${itemId}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

export async function setSettings(t: TestInbox, settings: Record<string, unknown>) {
  const r = await t.owner('PUT', '/v1/owner/settings', { body: { settings } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

export const HOUR = 3_600_000;
export const DAY = 86_400_000;
