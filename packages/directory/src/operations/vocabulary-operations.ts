/** Categories, place categories, attributes and the ranking rules (directory spec §2, §4). */
import { Problem } from '@svc/shared';
import { z } from 'zod';
import { rulesByVersion, rulesInForce } from '../domain/ranking/rules.js';
import { rulesDocument } from '../domain/ranking/rules-document.js';
import { attributesDocument } from '../domain/vocab/attributes.js';
import { CATEGORIES_VERSION, categoryListEntries, isGroupSlug } from '../domain/vocab/groups.js';
import { loadTaxonomy } from '../domain/vocab/taxonomy.js';
import { READ, directoryOperation } from './context.js';

const taxonomyMeta = z.object({ name: z.string(), release: z.string(), licence: z.string(), url: z.string() });
const DAY = 86_400;

export const listCategories = directoryOperation({
  name: 'list_categories',
  title: 'List category groups',
  description: 'Category groups with labels in several languages and their kind; with `group`, that group\'s place categories and the taxonomy they come from.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/categories' },
  answers: { etag: true },
  input: z.object({ group: z.string().min(1).max(60).optional().describe('A group slug: adds place_categories and taxonomy.') }),
  output: z.object({
    version: z.number().int().min(1),
    categories: z.array(z.object({ slug: z.string(), labels: z.record(z.string(), z.string()), kind: z.enum(['local_and_retail', 'software_and_ai']) })),
    place_categories: z.array(z.object({ id: z.string(), label: z.string(), parent: z.string().nullable(), group: z.string() })).optional(),
    taxonomy: taxonomyMeta.extend({ group: z.string() }).optional(),
  }),
  annotations: READ,
  cacheMaxAgeSec: DAY,
  errors: ['bad_request', 'not_found'],
  run: async (_ctx, input) => {
    const answer: Record<string, unknown> = { version: CATEGORIES_VERSION, categories: categoryListEntries() };
    if (input.group !== undefined) {
      if (!isGroupSlug(input.group)) throw new Problem('not_found', `No category group is called ${input.group}; see GET /v1/categories.`);
      const taxonomy = loadTaxonomy();
      const places = taxonomy.placeCategoriesInGroup(input.group);
      answer.place_categories = places.map((p) => ({ id: p.id, label: p.label, parent: p.parent, group: p.group }));
      const source = places.find((p) => p.source === 'taxonomy');
      if (source) answer.taxonomy = { ...taxonomy.meta, group: input.group };
    }
    return answer as never;
  },
});

export const getPlaceCategory = directoryOperation({
  name: 'get_place_category',
  title: 'Read a place category',
  description: 'One place category with its path, group and the taxonomy it comes from (none for the software-ai group, whose categories are our own).',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/c/{id}' },
  answers: { etag: true },
  input: z.object({ id: z.string().min(1).max(120) }),
  output: z.object({
    id: z.string(),
    label: z.string(),
    labels: z.record(z.string(), z.string()).optional(),
    parent: z.string().nullable(),
    path: z.array(z.string()),
    group: z.string(),
    regulated: z.string().optional(),
    taxonomy: taxonomyMeta.optional(),
  }),
  annotations: READ,
  cacheMaxAgeSec: DAY,
  errors: ['not_found'],
  run: async (_ctx, input) => {
    const taxonomy = loadTaxonomy();
    const category = taxonomy.byId(input.id);
    if (!category) throw new Problem('not_found', `No place category has id ${input.id}.`);
    const meta = taxonomy.taxonomyOf(category.id);
    return {
      id: category.id,
      label: category.label,
      labels: category.labels as Record<string, string>,
      parent: category.parent,
      path: [...category.path],
      group: category.group,
      ...(category.regulated ? { regulated: category.regulated } : {}),
      ...(meta ? { taxonomy: meta } : {}),
    };
  },
});

export const listAttributes = directoryOperation({
  name: 'list_attributes',
  title: 'List attribute keys and payments',
  description: 'Attribute keys with group, type, labels, whether they can be filtered on, and their values; the payment methods, wallets and agent payments (every token a listing shows in accepts.pay is one of them), with their names.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/attributes' },
  answers: { etag: true },
  input: z.object({}),
  output: z.object({
    version: z.number().int().min(1),
    keys: z.array(z.object({ key: z.string(), group: z.string(), type: z.enum(['bool', 'enum']), labels: z.record(z.string(), z.string()), filterable: z.boolean(), values: z.array(z.string()).optional() })),
    payments: z.object({ methods: z.array(z.string()), wallets: z.array(z.string()), agent: z.array(z.string()) }),
    payment_labels: z.record(z.string(), z.string()).describe('The name of every payment token of `payments`.'),
  }),
  annotations: READ,
  cacheMaxAgeSec: DAY,
  errors: [],
  run: async () => attributesDocument(),
});

export const getRankingRules = directoryOperation({
  name: 'get_ranking_rules',
  title: 'Read the ranking rules',
  description: 'The published rules of the order: the version in force by default, or any version ever published; every number the order uses, the changelog and the announced next version.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/ranking' },
  answers: { etag: true },
  input: z.object({ version: z.number().int().min(1).optional() }),
  output: z.looseObject({ version: z.number().int().min(1), status: z.string() }),
  annotations: READ,
  cacheMaxAgeSec: 300,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input) => {
    const nowMs = ctx.domain.clock.now();
    const rules = input.version === undefined ? rulesInForce(nowMs) : rulesByVersion(input.version);
    if (!rules || Date.parse(rules.publishedAt) > nowMs) throw new Problem('not_found', `Ranking rules version ${input.version} was never published here.`);
    return rulesDocument(rules, nowMs, ctx.domain.settings.baseUrl);
  },
});
