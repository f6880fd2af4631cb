/** The agentic check (directory spec §4): its score rules, check results, the check itself and the leaderboard. */
import { Problem } from '@svc/shared';
import { z } from 'zod';
import { scoreRulesByVersion, scoreRulesDocument, scoreRulesInForce } from '../domain/checks/score-rules.js';
import { isGroupSlug } from '../domain/vocab/groups.js';
import { READ, directoryOperation } from './context.js';

export const getScoreRules = directoryOperation({
  name: 'get_score_rules',
  title: 'Read the score rules',
  description:
    'The published rules of the agentic score: capabilities, their groups and weights, the profile of each kind of business, the formula, the grades, the fixes and the changelog; the version in force by default, or any version ever published. The score never changes the directory\'s order.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/v1/score-rules' },
  answers: { etag: true },
  input: z.object({ version: z.number().int().min(1).optional().describe('A version ever published; the one in force when absent.') }),
  output: z.looseObject({
    version: z.number().int().min(1),
    status: z.string(),
    groups: z.array(z.looseObject({ id: z.string(), weight: z.number() })),
    profiles: z.array(z.looseObject({ id: z.string() })),
    formula: z.string(),
  }),
  annotations: READ,
  cacheMaxAgeSec: 300,
  errors: ['bad_request', 'not_found'],
  run: async (ctx, input) => {
    const nowMs = ctx.domain.clock.now();
    const rules = input.version === undefined ? scoreRulesInForce(nowMs) : scoreRulesByVersion(input.version, nowMs);
    if (!rules) throw new Problem('not_found', `Score rules version ${input.version} was never published here.`);
    return scoreRulesDocument(rules, nowMs, ctx.domain.settings.baseUrl) as never;
  },
});

const domainParam = z.string().min(1).max(253).describe('The registrable domain of the site, such as bakery.example.com; another spelling answers 301 to the canonical result.');

const checkResult = z
  .looseObject({
    domain: z.string(),
    url: z.string(),
    state: z.enum(['not_checked', 'queued', 'checking', 'scoring', 'done', 'blocked', 'failed', 'hidden', 'not_checkable']),
    indexable: z.boolean(),
    agentic_score: z.number().int().min(0).max(100).optional(),
    grade: z.enum(['A', 'B', 'C', 'D', 'E']).optional(),
    queue: z.object({ position: z.number().int().min(1), budget: z.enum(['open', 'spent', 'paused']), retry_after_s: z.number().int().min(0).optional() }).optional(),
    answers: z
      .array(
        z.object({
          capability: z.string(),
          answer: z.enum(['yes', 'partly', 'no', 'not_applicable']),
          door: z.object({ type: z.string(), url: z.string() }).nullable(),
          how: z.string(),
          checked_at: z.string(),
        }),
      )
      .optional(),
    capabilities: z.array(z.looseObject({ id: z.string(), group: z.string(), state: z.enum(['yes', 'partial', 'no', 'na']), evidence: z.enum(['declared']).nullable(), weight: z.number(), points: z.number() })).optional(),
    fixes: z.array(z.object({ capability: z.string(), points: z.number().int().min(1), title: z.string(), how: z.string() })).optional(),
    doors: z
      .array(
        z.looseObject({
          type: z.string(),
          url: z.string(),
          level: z.string(),
          status: z.enum(['live', 'failing']).describe('failing after three failures in seven days (it then counts for nothing); a door failing thirty days is left out'),
          kinds: z.array(z.string()),
          src: z.enum(['declared', 'seen']),
          checked_at: z.string().describe('when it was last seen answering (a live door that did not answer at this check is dated by its last answer)'),
          failures: z.number().int().min(0).optional().describe('failures within the last seven days'),
          last_live_at: z.string().nullable().optional().describe('when it last answered; null when it never did'),
          failing_since: z.string().optional(),
        }),
      )
      .optional(),
    rank: z.object({ text: z.string(), scope: z.record(z.string(), z.string()), position: z.number().int().min(1), of: z.number().int().min(1), overall: z.object({ position: z.number().int().min(1), of: z.number().int().min(1) }) }).optional(),
  })
  .describe('A check result: its state as the check goes (queued with its place in the queue, checking, scoring) and, once done, the agentic score, grade, five answers, capabilities with evidence, doors, fixes and rank.');

export const getCheckResult = directoryOperation({
  name: 'get_check_result',
  title: 'Read a site\'s check result',
  description:
    'The agentic check result of a site by its registrable domain: not_checked, queued (with its place in the queue and the crawler\'s daily budget), checking, scoring, done (score, grade, answers, capabilities, doors, fixes, rank), blocked, failed, hidden or not_checkable. Reading never starts a check.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/b/{domain}.json' },
  answers: { etag: true, robotsTag: true, redirects: true },
  input: z.object({ domain: domainParam }),
  output: checkResult,
  annotations: READ,
  cacheMaxAgeSec: 60,
  errors: ['not_found'],
  run: async (ctx, input, extras) => {
    const domain = ctx.checks.canonical(input.domain);
    const doc = await ctx.checks.document(domain);
    if (doc.indexable !== true) extras.headers = { ...(extras.headers ?? {}), 'x-robots-tag': 'noindex' };
    return doc as never;
  },
});

export const checkBusiness = directoryOperation({
  name: 'check_business',
  title: 'Check a business\'s site',
  description:
    'Asks for the agentic check of a site (its address or bare domain): queued at once (202, the result\'s address in Location and result_url; read it as the check goes); a check queued or running answers where it stands; a check that ended within the last hour answers its result (200). The crawler reads only (robots.txt obeyed, no tool called, no form sent) within a daily budget. A caller may ask for 20 new checks an hour.',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/check', successStatus: 202 },
  answers: { alsoStatuses: [200], location: true },
  input: z.object({ url: z.string().min(1).max(2048).describe('The site: its address (https://bakery.example.com/) or bare domain (bakery.example.com).') }),
  output: checkResult,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: ['bad_request', 'rate_limited'],
  run: async (ctx, input, extras) => {
    const asked = await ctx.checks.request(input.url, ctx.callerAddress ?? 'unknown');
    extras.status = asked.status;
    extras.headers = { ...(extras.headers ?? {}), location: `${ctx.domain.settings.baseUrl}/b/${asked.domain}.json` };
    return asked.document as never;
  },
});

export const updateCheckVisibility = directoryOperation({
  name: 'update_check_visibility',
  title: 'Apply the owner\'s choice for a result',
  description:
    'Reads https://<domain>/.well-known/svc-check.json now and applies what the site\'s owner says there: {"result": "hidden"} hides the result (and the found listing) at once; {"result": "shown"} shows it again with a new check. Only whoever controls the site can publish that file, so no account is needed. A site\'s file is read at most 6 times an hour, and a caller may ask 20 times an hour (429 with Retry-After past either).',
  audience: 'public',
  kind: 'write',
  http: { method: 'POST', path: '/check/visibility' },
  answers: { alsoStatuses: [202] },
  input: z.object({ domain: domainParam }),
  output: checkResult,
  annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
  errors: ['bad_request', 'not_found', 'rate_limited'],
  run: async (ctx, input, extras) => {
    const applied = await ctx.checks.visibility(input.domain, ctx.callerAddress ?? 'unknown', (domain) => ctx.readOwnerChoice(domain));
    extras.status = applied.status;
    return applied.document as never;
  },
});

export const getLeaderboard = directoryOperation({
  name: 'get_leaderboard',
  title: 'Read a leaderboard',
  description:
    'Businesses checked, ordered by agentic score, then most recent check, then domain: by category group, country and place, or everyone of the local and retail kind (software and AI companies only on their own group\'s board). Fifty named a page; only agent-ready businesses whose sites do not tell AI systems to keep away are named, the others counted in `unnamed`. Not the directory\'s search order.',
  audience: 'public',
  kind: 'read',
  http: { method: 'GET', path: '/leaderboard.json' },
  answers: { etag: true },
  input: z.object({
    category: z.string().min(1).max(60).optional().describe('A category group of GET /v1/categories.'),
    country: z.string().regex(/^[A-Za-z]{2}$/).optional().describe('ISO 3166-1 alpha-2.'),
    place: z.string().regex(/^[a-z0-9-]{1,80}$/).optional().describe('A place in the country, as a check result gives it (lower-case letters, digits and hyphens); needs country.'),
    page: z.number().int().min(1).max(20).optional(),
  }),
  output: z.looseObject({
    scope: z.record(z.string(), z.string()),
    rules: z.object({ version: z.number().int().min(1), url: z.string() }),
    order: z.string(),
    not_search_order: z.string(),
    total: z.number().int().min(0),
    unnamed: z.number().int().min(0),
    page: z.number().int().min(1),
    next_page: z.number().int().min(2).nullable(),
    named: z.array(z.looseObject({ position: z.number().int().min(1), domain: z.string(), name: z.string(), score: z.number().int(), grade: z.string(), checked_at: z.string(), result_url: z.string() })),
  }),
  annotations: READ,
  cacheMaxAgeSec: 60,
  errors: ['bad_request'],
  run: async (ctx, input) => {
    if (input.place !== undefined && input.country === undefined) {
      throw new Problem('bad_request', 'place needs country.', { fields: [{ path: 'place', problem: 'invalid', message: 'Give country with place.' }] });
    }
    if (input.category !== undefined && !isGroupSlug(input.category)) {
      throw new Problem('bad_request', `No category group is called ${input.category}; see GET /v1/categories.`, { fields: [{ path: 'category', problem: 'invalid', message: 'A group slug of GET /v1/categories.' }] });
    }
    return (await ctx.checks.leaderboard({ category: input.category, country: input.country?.toUpperCase(), place: input.place }, input.page ?? 1)) as never;
  },
});
