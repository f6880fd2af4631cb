/** get_settings / update_settings (inbox spec §2 Settings document, §4). */
import { Problem } from '@svc/shared';
import { z } from 'zod';
import { loadSettings } from '../domain/context.js';
import { guardSecuritySection } from '../domain/settings/security-rule.js';
import { applySettingsWrite, redact, withDefaults } from '../domain/settings/settings-document.js';
import { scheduleNetworkRegistrations } from '../networks/network-jobs.js';
import { PUT, READ, inboxOperation } from './context.js';

const settingsAnswer = z.object({
  version: z.number().int(),
  settings: z.record(z.string(), z.unknown()).describe('The whole document, defaults filled in; set secrets read as "[redacted]".'),
  redacted: z.array(z.string()).describe('Paths of secrets that are set and shown redacted.'),
});

export const getSettingsOperation = inboxOperation({
  name: 'get_settings',
  title: 'Read the settings',
  description: 'The settings document with its version. Secrets that are set read as "[redacted]" and `redacted` names their paths.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/settings' },
  scope: 'settings:read',
  input: z.object({}),
  output: settingsAnswer,
  annotations: READ,
  errors: ['unauthorized'],
  run: async (ctx) => {
    const { settings, version } = await loadSettings(ctx.domain.store);
    return { version, ...redact(settings) };
  },
});

export const updateSettingsOperation = inboxOperation({
  name: 'update_settings',
  title: 'Change the settings',
  description:
    'Merges the document sent over the current one: objects merge key by key, null removes a key so its default applies. Writing a document back as read ({version, settings, redacted}, secrets "[redacted]") or without a secret keeps it; its version guards the write as expected_version does. Only the owner changes `security`; others may send it unchanged.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'PUT', path: '/v1/owner/settings' },
  scope: 'settings:write',
  input: z.object({
    settings: z.record(z.string(), z.unknown()).describe('The part of the document to change.'),
    expected_version: z.number().int().min(0).optional().describe('Refuse with version_conflict unless the document is at this version.'),
    version: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The version get_settings answered with, as it was read: taken as expected_version (a document written back as read is refused if it changed meanwhile).'),
    redacted: z
      .array(z.string().max(200))
      .max(50)
      .optional()
      .describe('What get_settings answered as redacted; ignored (a secret sent back as "[redacted]" keeps its value).'),
    idempotency_key: z.string().min(1).max(200).optional(),
  }).strict(),
  output: settingsAnswer,
  annotations: PUT,
  errors: ['unauthorized', 'not_allowed', 'invalid_input', 'version_conflict'],
  run: async (ctx, input) => {
    const store = ctx.domain.store;
    const expectedVersion = expectedVersionOf(input);
    const current = await loadSettings(store);
    if (expectedVersion !== undefined && expectedVersion !== current.version) {
      throw new Problem('version_conflict', `The settings are at version ${current.version}; read them again.`, {
        extensions: { currentVersion: current.version },
      });
    }
    const next = guardSecuritySection(ctx.caller, current.stored, applySettingsWrite(current.stored, input.settings, { allowLocalNetworks: ctx.config.allowLocalNetworks ?? false }));
    const written = await store.settings.put(next, current.version === 0 ? null : current.version, ctx.domain.clock.now());
    if (!written) throw new Problem('version_conflict', 'The settings changed meanwhile; read them again.');
    // A network just enabled is registered with at once (in the same transaction as the change).
    await scheduleNetworkRegistrations(store, ctx.domain.clock.now());
    return { version: current.version + 1, ...redact(withDefaults(next as Record<string, never>)) };
  },
});

/**
 * The version a write expects: `expected_version`, or `version` from a document written back as read
 * (inbox spec §5). Both sent and different is a request at odds with itself, refused before anything
 * is read (docs/decisions.md).
 */
function expectedVersionOf(input: { version?: number | undefined; expected_version?: number | undefined }): number | undefined {
  if (input.version !== undefined && input.expected_version !== undefined && input.version !== input.expected_version) {
    const message = `version (${input.version}) and expected_version (${input.expected_version}) differ; send one of them.`;
    throw new Problem('invalid_input', message, {
      fields: [
        { path: 'version', problem: 'invalid', message },
        { path: 'expected_version', problem: 'invalid', message },
      ],
    });
  }
  return input.expected_version ?? input.version;
}
