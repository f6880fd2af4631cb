/** A refusal from an operation, said on the page it came from: its words and the fields to fix. */
import { html, type Html, type Problem } from '@svc/shared';
import type { Messages } from '../messages-en.js';
import { notice } from './layout.js';

export function problemNotice(t: Messages, problem: Problem): Html {
  const fields = problem.fields ?? [];
  return notice(
    'bad',
    html`<strong>${t.problem}:</strong> ${problem.code === 'slot_taken' ? t.slot.full : problem.message}${
      fields.length > 0 ? html`<ul class="small">${fields.map((field) => html`<li><code>${field.path}</code>: ${field.message}</li>`)}</ul>` : null
    }`,
  );
}
