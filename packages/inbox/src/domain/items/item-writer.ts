/**
 * The two writes every item goes through: creating it (version 1, its `<type>.create` event) and
 * moving it (load, resolve, guard, apply effects, compare-and-set, event, follow-ups). Callers run
 * these inside a store transaction; nothing here commits on its own.
 */
import { Problem, escapeUnsafe, newId, problemFromZod } from '@svc/shared';
import { loadProfile, readSettings, type DomainContext } from '../context.js';
import { MACHINES, candidateTransitions, normaliseEventName, resolveTransition, type TransitionRow } from '../machines/index.js';
import { foldText } from '../text.js';
import type { Actor, Contact, ItemRecord, ItemType, MessageRecord } from '../types.js';
import type { Mover } from './mover.js';
import { applyEffects, type NewItemRequest, type ScheduledJob } from './effects.js';
import { checkGuards } from './guards.js';
import { scheduleRules } from '../rules/schedule-rules.js';
import { recordEvent } from '../events/record-event.js';
import { noticeOf, queueNotice } from '../mail/notices.js';
import { followReminder } from '../mail/reminders.js';
import { queueOutcomeReports } from '../identity/item-identity.js';
import { issueReceipts } from '../receipts/issue-receipts.js';

export type { Mover } from './mover.js';

export interface NewItem {
  /** Given when the id had to be known before the item is written (a move's linked item); else made here. */
  id?: string | undefined;
  type: ItemType;
  payload: Record<string, unknown>;
  contact: Contact | null;
  sandbox: boolean;
  needsHuman: boolean;
  accessTokenHash: string;
  serviceId?: string | null;
  startAt?: number | null;
  endAt?: number | null;
  partySize?: number | null;
  linkedItemId?: string | null;
  message?: string | undefined;
}


export async function insertItem(ctx: DomainContext, mover: Mover, spec: NewItem): Promise<ItemRecord> {
  return (await writeNewItem(ctx, mover, spec)).item;
}

/** What a create wrote: the item and the message it started with, so its answer needs no reading back. */
export interface WrittenItem {
  item: ItemRecord;
  messages: MessageRecord[];
}

export async function writeNewItem(ctx: DomainContext, mover: Mover, spec: NewItem): Promise<WrittenItem> {
  const nowMs = ctx.clock.now();
  const machine = MACHINES[spec.type];
  const item: ItemRecord = {
    id: spec.id ?? newId(nowMs),
    type: spec.type,
    state: machine.initial,
    version: 1,
    payload: spec.payload,
    contact: spec.contact,
    needsHuman: spec.needsHuman,
    priority: 0,
    sandbox: spec.sandbox,
    accessTokenHash: spec.accessTokenHash,
    channel: mover.channel,
    serviceId: spec.serviceId ?? null,
    startAt: spec.startAt ?? null,
    endAt: spec.endAt ?? null,
    partySize: spec.partySize ?? null,
    linkedItemId: spec.linkedItemId ?? null,
    searchText: '',
    isOpen: !machine.terminal.includes(machine.initial),
    createdAt: nowMs,
    updatedAt: nowMs,
    closedAt: null,
  };
  item.searchText = buildSearchText(item, spec.message ? [spec.message] : []);
  await ctx.store.items.insert(item);
  await recordEvent(ctx, {
    id: newId(nowMs),
    itemId: item.id,
    seq: 1,
    type: `${item.type}.create`,
    event: 'create',
    fromState: null,
    toState: item.state,
    version: 1,
    actor: mover.actor,
    channel: mover.channel,
    sandbox: item.sandbox,
    reason: null,
    data: null,
    createdAt: nowMs,
  });
  const messages: MessageRecord[] = [];
  if (spec.message) {
    const message: MessageRecord = {
      id: newId(nowMs),
      itemId: item.id,
      authorKind: mover.actor.kind,
      authorId: mover.actor.id,
      authorName: spec.contact?.name ?? mover.actor.name,
      body: spec.message,
      internal: false,
      channel: mover.channel,
      createdAt: nowMs,
    };
    await ctx.store.items.addMessage(message);
    messages.push(message);
  }
  await scheduleRules(ctx, mover, item, `${item.type}.create`);
  return { item, messages };
}

export interface TransitionRequest {
  /** Events to try in order; the first whose guards pass is fired (cancel, then cancel_late). */
  events: readonly string[];
  input?: Record<string, unknown> | undefined;
  reason?: string | undefined;
  expectedVersion?: number | undefined;
}

export async function moveItem(ctx: DomainContext, mover: Mover, item: ItemRecord, request: TransitionRequest): Promise<ItemRecord> {
  if (request.expectedVersion !== undefined && request.expectedVersion !== item.version) {
    throw new Problem('version_conflict', `The item is at version ${item.version}, not ${request.expectedVersion}; read it again.`, {
      extensions: { currentVersion: item.version },
    });
  }
  const machine = MACHINES[item.type];
  const settings = await readSettings(ctx.store);
  const nowMs = ctx.clock.now();

  let chosen: { row: TransitionRow; input: Record<string, unknown> } | null = null;
  // The first structural refusal (unknown event, wrong state, not allowed), and the last guard refusal:
  // the events are tried from the general to the specific, so the last guard says most (cancel → cancel_late).
  let structuralRefusal: Problem | null = null;
  let guardRefusal: Problem | null = null;
  for (const rawEvent of request.events) {
    const event = normaliseEventName(item.type, rawEvent);
    let rows: TransitionRow[];
    try {
      rows = resolveTransition(machine, item.state, event, mover.actor.kind);
    } catch (problem) {
      structuralRefusal ??= problem as Problem;
      continue;
    }
    for (const row of rows) {
      const input = parseTransitionInput(row, request.input);
      const refusal = await checkGuards({ ctx, item, row, input, settings, actor: mover.actor.kind, nowMs });
      if (!refusal) {
        chosen = { row, input };
        break;
      }
      guardRefusal = refusal;
    }
    if (chosen) break;
  }
  if (!chosen) throw guardRefusal ?? structuralRefusal ?? new Problem('unknown_event', 'No event was named.');

  const { row, input } = chosen;
  const { profile } = await loadProfile(ctx.store);
  const draft: ItemRecord = structuredClone(item);
  const jobs: ScheduledJob[] = [];
  const newItems: NewItemRequest[] = [];
  await applyEffects(row.effects, {
    ctx,
    draft,
    input,
    settings,
    timeZone: profile.timeZone,
    currency: profile.currency,
    nowMs,
    jobs,
    newItems,
  });

  // Items this move opens (a refund, a quote's booking or order) get their ids now, so the move can
  // name them; they are written after the move's own event, so the stream has the cause first.
  const linkedIds = newItems.map((request) => {
    const id = newId(nowMs);
    request.link(id);
    return id;
  });

  const to = row.to ?? item.state;
  draft.state = to;
  draft.version = item.version + 1;
  draft.updatedAt = nowMs;
  draft.isOpen = !machine.terminal.includes(to);
  draft.closedAt = draft.isOpen ? null : (item.closedAt ?? nowMs);
  draft.searchText = [buildSearchText(draft, []), ...item.searchText.split(' | ').slice(1)].join(' | ');
  const written = await ctx.store.items.update(draft, item.version);
  if (!written) throw new Problem('version_conflict', 'The item changed while this move was being made; read it again.');
  await recordEvent(ctx, {
    id: newId(nowMs),
    itemId: item.id,
    seq: draft.version,
    type: `${item.type}.${row.event}`,
    event: row.event,
    fromState: item.state,
    toState: to,
    version: draft.version,
    actor: mover.actor,
    channel: mover.channel,
    sandbox: item.sandbox,
    reason: request.reason ?? null,
    data: Object.keys(input).length > 0 ? input : null,
    createdAt: nowMs,
  });
  // The receipts this move makes due are signed now, in its transaction: the move and its receipts stand or fall together.
  await issueReceipts(ctx, { before: item, after: draft, row, actor: mover.actor, channel: mover.channel, nowMs });
  for (const [index, request] of newItems.entries()) {
    await insertItem(ctx, mover, {
      id: linkedIds[index],
      type: request.type,
      payload: request.payload,
      contact: item.contact,
      sandbox: item.sandbox,
      needsHuman: false,
      accessTokenHash: item.accessTokenHash,
      serviceId: request.serviceId ?? null,
      startAt: request.startAt ?? null,
      endAt: request.endAt ?? null,
      partySize: request.partySize ?? null,
      linkedItemId: item.id,
    });
  }
  for (const job of jobs) {
    await ctx.store.jobs.enqueue({ id: newId(nowMs), ...job }, nowMs);
  }
  await scheduleRules(ctx, mover, draft, `${item.type}.${row.event}`);
  // The customer hears of it by mail when the move tells them something (docs/mail.md).
  const notice = noticeOf(`${item.type}.${row.event}`);
  if (notice) await queueNotice(ctx, draft, notice, { seq: draft.version });
  // A confirmed booking's reminder the day before; cancelled when it leaves `confirmed` (docs/mail.md "Reminders").
  await followReminder(ctx, item, draft);
  // A presented customer's outcome goes to the networks that presented them (docs/identity.md).
  if (!draft.isOpen || row.effects.length > 0) await queueOutcomeReports(ctx, draft);
  return draft;
}

/**
 * An event that is not a transition (`<type>.message`, `<type>.flags`): recorded with the item's
 * current version and state, never bumping the version.
 */
export async function recordSideEvent(
  ctx: DomainContext,
  mover: Mover,
  item: ItemRecord,
  event: 'message' | 'flags',
  data: Record<string, unknown>,
): Promise<void> {
  const nowMs = ctx.clock.now();
  await recordEvent(ctx, {
    id: newId(nowMs),
    itemId: item.id,
    seq: null,
    type: `${item.type}.${event}`,
    event,
    fromState: item.state,
    toState: item.state,
    version: item.version,
    actor: mover.actor,
    channel: mover.channel,
    sandbox: item.sandbox,
    reason: null,
    data,
    createdAt: nowMs,
  });
}

/** Makes a message's words findable by list_items `q`; the item's version stays. */
export async function addToSearchText(ctx: DomainContext, item: ItemRecord, text: string): Promise<ItemRecord> {
  const messageWords = buildSearchText(item, [text]).split(' | ')[1] ?? '';
  const updated = { ...item, searchText: `${item.searchText} | ${messageWords}`, updatedAt: ctx.clock.now() };
  if (!(await ctx.store.items.update(updated, item.version))) throw new Problem('version_conflict', 'The item changed; try again.');
  return updated;
}

function parseTransitionInput(row: TransitionRow, raw: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!row.input) {
    // An event that takes no input refuses one rather than drop it unread (issue 19).
    const unread = Object.keys(raw ?? {});
    if (unread.length === 0) return {};
    const fields = unread.map((key) => ({ path: `input.${escapeUnsafe(key)}`, problem: 'invalid' as const, message: `${row.event} takes no input.` }));
    throw new Problem('invalid_input', `${row.event} takes no input; leave input out.`, { fields });
  }
  const parsed = row.input.safeParse(raw ?? {});
  if (!parsed.success) {
    const problem = problemFromZod(parsed.error);
    throw new Problem('invalid_input', problem.message, { fields: problem.fields?.map((f) => ({ ...f, path: `input.${f.path}` })) ?? [] });
  }
  return parsed.data as Record<string, unknown>;
}

/** Rows the actor may fire now: candidates whose guards pass, one per event. */
export async function openMoves(ctx: DomainContext, item: ItemRecord, actor: Actor): Promise<TransitionRow[]> {
  const machine = MACHINES[item.type];
  const settings = await readSettings(ctx.store);
  const nowMs = ctx.clock.now();
  const open: TransitionRow[] = [];
  const seen = new Set<string>();
  for (const row of candidateTransitions(machine, item.state, actor.kind, true)) {
    const key = row.unlisted && row.event === 'cancel_late' ? 'cancel' : row.event;
    if (seen.has(key)) continue;
    // Guards that need input (order_priced) are judged as if no input were given.
    const refusal = await checkGuards({ ctx, item, row, input: {}, settings, actor: actor.kind, nowMs });
    if (refusal && !(row.input && refusal.code === 'guard_failed' && row.guards.includes('order_priced'))) continue;
    seen.add(key);
    open.push(row);
  }
  return open;
}

/**
 * Folded words an owner can search by: the head from the item's fields, then a tail of message
 * text after ' | ' separators that transitions keep.
 */
export function buildSearchText(item: ItemRecord, messages: readonly string[]): string {
  const p = item.payload as Record<string, unknown>;
  const parts: unknown[] = [
    item.type,
    item.contact?.name,
    item.contact?.email,
    item.contact?.phone,
    p.serviceName,
    p.description,
    p.subject,
    Array.isArray(p.lines) ? (p.lines as { name?: string; sku?: string | null }[]).map((l) => `${l.name ?? ''} ${l.sku ?? ''}`).join(' ') : null,
  ];
  const head = foldText(parts.filter((v) => typeof v === 'string' && v.length > 0).join(' ')).replace(/\|/g, ' ');
  return [head, ...messages.map((m) => foldText(m).replace(/\|/g, ' '))].join(' | ');
}

/**
 * Raises or clears needsHuman as a side effect of a message (the owner's answer clears it, a
 * customer's new message in a conversation raises it again): a `<type>.flags` event, no version change.
 */
export async function setNeedsHuman(ctx: DomainContext, mover: Mover, item: ItemRecord, needsHuman: boolean): Promise<ItemRecord> {
  if (item.needsHuman === needsHuman) return item;
  const updated = { ...item, needsHuman, updatedAt: ctx.clock.now() };
  if (!(await ctx.store.items.update(updated, item.version))) throw new Problem('version_conflict', 'The item changed; try again.');
  await recordSideEvent(ctx, mover, item, 'flags', { needsHuman, priority: updated.priority });
  return updated;
}
