/**
 * The shape of a rule as the owner writes and reads it: a trigger (`when`), conditions (`if`) over
 * a small typed vocabulary of facts, and one action (`then`). Only shapes live here; what a shape
 * may mean for the machines (events that exist, positive_only) is checked in rule-validation.ts.
 * See docs/rules.md.
 */
import { z } from 'zod';

/** Rules kept at most; a rule set this size is already more than an owner can reason about. */
export const MAX_RULES = 100;
/** Conditions per rule: all must hold. */
export const MAX_CONDITIONS = 10;
/** A delayed rule waits at most a year. */
export const MAX_AFTER_HOURS = 8760;

const money = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const count = z.number().int().min(0).max(10_000);

export const ruleIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'rule ids are 1-64 letters, digits, dot, dash or underscore');

export const triggerSchema = z
  .object({
    event: z
      .string()
      .regex(/^(\*|[a-z_]+\.(\*|[a-z_]+)|\*\.[a-z_]+)$/, 'event is `*`, `<item type>.*`, `*.<event>` or `<item type>.<event>`, e.g. booking.create')
      .describe('The event that starts the rule: `booking.create`, `booking.*`, `*.provide_info` or `*`.'),
    afterHours: z
      .number()
      .int()
      .min(1)
      .max(MAX_AFTER_HOURS)
      .optional()
      .describe('Wait this many hours after the event, and act only if the item was not moved meanwhile (its version is unchanged).'),
  })
  .strict();

const isTrue = z.boolean().default(true).describe('Whether the fact must be true (default) or false.');

/** Every fact a condition may read. The `customer_*` facts are the customer's standing. */
export const conditionSchema = z.discriminatedUnion('fact', [
  z
    .object({ fact: z.literal('price_model'), in: z.array(z.enum(['fixed', 'from', 'quote', 'none'])).min(1).max(4) })
    .strict()
    .describe('Bookings: the service\'s price model is one of these.'),
  z
    .object({ fact: z.literal('price_at_most'), amountMinor: money })
    .strict()
    .describe('The price the business set (booking price, order total, quote total) is known and at most this, in minor units. The customer\'s stated price is never read.'),
  z.object({ fact: z.literal('fully_priced'), is: isTrue }).strict().describe('Bookings and orders: every price is set by the catalogue or the business.'),
  z.object({ fact: z.literal('within_opening_hours'), is: isTrue }).strict().describe('Bookings: the booked time lies inside one opening range and not on a closure.'),
  z.object({ fact: z.literal('slot_free'), is: isTrue }).strict().describe('Bookings: the booked time still has room for the party among confirmed bookings.'),
  z.object({ fact: z.literal('party_size_at_most'), size: z.number().int().min(1).max(1000) }).strict().describe('Bookings: the party is at most this many people.'),
  z
    .object({ fact: z.literal('service'), in: z.array(z.string().min(1).max(100)).min(1).max(50) })
    .strict()
    .describe('Bookings and quote requests: the item names one of these services.'),
  z.object({ fact: z.literal('sandbox'), is: isTrue }).strict().describe('The item is a sandbox (test) item.'),
  z
    .object({ fact: z.literal('customer_completed_at_least'), count })
    .strict()
    .describe('Standing: earlier items with the same contact email that completed number at least this.'),
  z
    .object({ fact: z.literal('customer_no_shows_at_most'), count })
    .strict()
    .describe('Standing: earlier bookings with the same contact email that were no-shows number at most this.'),
  z
    .object({ fact: z.literal('customer_no_shows_at_least'), count: count.min(1) })
    .strict()
    .describe('Standing: earlier bookings with the same contact email that were no-shows number at least this.'),
]);

export const actionSchema = z.discriminatedUnion('do', [
  z
    .object({
      do: z.literal('transition'),
      event: z.string().regex(/^[a-z_]+$/, 'event is a plain event name such as confirm').describe('An event of the item\'s machine a rule may fire.'),
      input: z
        .object({ paymentUrl: z.url({ protocol: /^https?$/ }).optional() })
        .strict()
        .optional()
        .describe('Only request_payment takes input (paymentUrl). A rule never sets a price.'),
    })
    .strict()
    .describe('Fire one event of the item, such as confirm, accept, request_payment, request_info, decline or expire.'),
  z
    .object({
      do: z.literal('set_flags'),
      needsHuman: z.boolean().optional(),
      priority: z.number().int().min(0).max(3).optional().describe('0 normal … 3 urgent.'),
    })
    .strict()
    .refine((a) => a.needsHuman !== undefined || a.priority !== undefined, { message: 'set_flags needs needsHuman or priority.' })
    .describe('Raise or clear needsHuman, or set the priority (a <type>.flags event).'),
  z
    .object({ do: z.literal('reply'), message: z.string().trim().min(1).max(5000) })
    .strict()
    .describe('Write this fixed text to the customer on the item.'),
]);

export const ruleInput = z
  .object({
    id: ruleIdSchema.optional().describe('Stable id; a new one is made when absent. An existing id replaces that rule.'),
    name: z.string().trim().min(1).max(200),
    enabled: z.boolean().default(true),
    position: z.number().int().min(0).max(100_000).optional().describe('Rules are tried in ascending position; new rules go last.'),
    when: triggerSchema,
    if: z.array(conditionSchema).max(MAX_CONDITIONS).default([]).describe('Every condition must hold.'),
    then: actionSchema,
  })
  .strict();

export const ruleSchema = z.object({
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  position: z.number().int(),
  when: z.object({ event: z.string(), afterHours: z.number().int().optional() }),
  if: z.array(conditionSchema),
  then: actionSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type RuleTrigger = z.output<typeof triggerSchema>;
export type RuleCondition = z.output<typeof conditionSchema>;
export type RuleAction = z.output<typeof actionSchema>;
export type RuleInput = z.output<typeof ruleInput>;
export type RuleFact = RuleCondition['fact'];
