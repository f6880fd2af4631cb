/** Markdown tables of every machine, for docs/items.md (a test keeps the document in step). */
import { ITEM_TYPES } from '../types.js';
import { MACHINES } from './index.js';

export function describeMachines(): string {
  const sections: string[] = [];
  for (const type of ITEM_TYPES) {
    const machine = MACHINES[type];
    const lines = [
      `### ${type}`,
      '',
      `States: ${machine.states.map((s) => `\`${s}\``).join(', ')}. Initial: \`${machine.initial}\`. Final: ${
        machine.terminal.length > 0 ? machine.terminal.map((s) => `\`${s}\``).join(', ') : 'none'
      }.`,
      '',
      '| event | from | to | by | guards | effects |',
      '|---|---|---|---|---|---|',
      ...machine.transitions.map(
        (row) =>
          `| \`${type}.${row.event}\`${row.unlisted ? ' (fired by cancel_item)' : ''} | ${row.from.join(', ')} | ${row.to ?? '(stays)'} | ${row.by.join(', ')} | ${
            row.guards.join(', ') || '–'
          } | ${row.effects.join(', ') || '–'} |`,
      ),
      '',
    ];
    sections.push(lines.join('\n'));
  }
  return sections.join('\n');
}
