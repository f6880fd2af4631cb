/** The agentic check (directory spec §4): its score rules, check results, the check itself and the leaderboard. */
import { Problem } from '@svc/shared';
import { z } from 'zod';
import { scoreRulesByVersion, scoreRulesDocument, scoreRulesInForce } from '../domain/checks/score-rules.js';
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
