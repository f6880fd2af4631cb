/**
 * Owner rules: what the owner lets happen without a person (inbox spec §4 setup operations under
 * /v1/owner/rules, scope setup:run; shapes designed here, see docs/rules.md).
 */
import { z } from 'zod';
import { ruleIdSchema, ruleInput, ruleSchema } from '../domain/rules/rule-schema.js';
import { deleteRule, getRule, listRules, ruleView, testRule, upsertRule } from '../domain/rules/rule-service.js';
import { PUT, READ, cursorPosition, idempotencyKeyField, inboxOperation, itemIdField, nextCursor, pageFields } from './context.js';

const OWNER_ERRORS = ['unauthorized', 'not_allowed', 'invalid_input'] as const;
const ruleIdPath = z.string().min(1).max(64).describe('The rule id.');

export const listRulesOperation = inboxOperation({
  name: 'list_rules',
  title: 'List rules',
  description: 'Every rule, enabled or not, in the order they are tried (position, then id). Paged.',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/rules' },
  scope: 'setup:run',
  input: z.object({ ...pageFields }),
  output: z.object({ items: z.array(ruleSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  errors: OWNER_ERRORS,
  run: async (ctx, input) => {
    const { items, lastId } = await listRules(ctx.domain, { after: cursorPosition(input.cursor), limit: input.limit });
    return { items, next_cursor: nextCursor(lastId) };
  },
});

export const getRuleOperation = inboxOperation({
  name: 'get_rule',
  title: 'Read one rule',
  description: 'The rule with its trigger (when), conditions (if) and action (then).',
  audience: 'owner',
  kind: 'read',
  http: { method: 'GET', path: '/v1/owner/rules/{id}' },
  scope: 'setup:run',
  input: z.object({ id: ruleIdPath }),
  output: ruleSchema,
  annotations: READ,
  errors: [...OWNER_ERRORS, 'not_found'],
  run: async (ctx, input) => ruleView(await getRule(ctx.domain, input.id)),
});

export const upsertRuleOperation = inboxOperation({
  name: 'upsert_rule',
  title: 'Add or replace a rule',
  description:
    'Creates the rule (201), or replaces the one with this id (200). A rule is {name, enabled, when: {event, afterHours?}, if: [conditions], then: action}. ' +
    'A rule never confirms or accepts work the business has not priced. A rule whose conditions read the customer\'s standing (customer_*) and whose action refuses, cancels or expires is refused with positive_only (422).',
  audience: 'owner',
  kind: 'write',
  http: { method: 'POST', path: '/v1/owner/rules' },
  answers: { location: true, alsoStatuses: [201] },
  scope: 'setup:run',
  input: z.object({ rule: ruleInput, idempotency_key: idempotencyKeyField }).strict(),
  output: ruleSchema,
  annotations: PUT,
  errors: [...OWNER_ERRORS, 'positive_only', 'idempotency_mismatch'],
  run: async (ctx, input, extras) => {
    const { rule, created } = await upsertRule(ctx.domain, input.rule);
    if (created) {
      extras.status = 201;
      extras.headers = { location: `/v1/owner/rules/${encodeURIComponent(rule.id)}` };
    }
    return rule;
  },
});

export const deleteRuleOperation = inboxOperation({
  name: 'delete_rule',
  title: 'Delete a rule',
  description: 'Deletes the rule for good and answers with it as it was; its pending delayed runs end without acting.',
  audience: 'owner',
  kind: 'write',
  http: { method: 'DELETE', path: '/v1/owner/rules/{id}' },
  scope: 'setup:run',
  input: z.object({ id: ruleIdPath, idempotency_key: idempotencyKeyField }).strict(),
  output: ruleSchema,
  annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: true },
  errors: [...OWNER_ERRORS, 'not_found', 'idempotency_mismatch'],
  run: (ctx, input) => deleteRule(ctx.domain, input.id),
});

const conditionOutcome = z.object({ fact: z.string(), holds: z.boolean(), detail: z.string() });

export const testRuleOperation = inboxOperation({
  name: 'test_rule',
  title: 'Try a rule on an item',
  description:
    'A dry run: what a stored rule (rule_id) or a rule you send (rule) would do to the item now, as if its trigger had just happened. Changes nothing. ' +
    'outcome is would_act, conditions_not_met, refused (the item would refuse the act now; see refusal) or not_applicable (the trigger never starts on this item type).',
  audience: 'owner',
  kind: 'read',
  http: { method: 'POST', path: '/v1/owner/rules/test' },
  scope: 'setup:run',
  input: z
    .object({
      item_id: itemIdField,
      rule_id: ruleIdSchema.optional().describe('A stored rule.'),
      rule: ruleInput.optional().describe('Or a rule to try before saving it.'),
    })
    .refine((i) => (i.rule_id === undefined) !== (i.rule === undefined), { message: 'Send rule_id or rule, not both.', path: ['rule_id'] }),
  output: z.object({
    rule: ruleSchema,
    item: z.object({ id: z.string(), type: z.string(), state: z.string(), version: z.number().int() }),
    outcome: z.enum(['would_act', 'conditions_not_met', 'refused', 'not_applicable']),
    detail: z.string(),
    conditions: z.array(conditionOutcome),
    refusal: z.object({ code: z.string(), detail: z.string() }).nullable(),
  }),
  annotations: READ,
  errors: [...OWNER_ERRORS, 'not_found', 'positive_only'],
  run: (ctx, input) => testRule(ctx.domain, { ruleId: input.rule_id, rule: input.rule }, input.item_id),
});
