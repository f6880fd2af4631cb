/** Markdown tables of every machine, for docs/items.md (a test keeps the document in step). */
import { ITEM_TYPES } from '../types.js';
import { MACHINES, type ReceiptDue } from './index.js';

/** A row's receipts in words: `confirmed`, `outcome booking.completed`, … (docs/receipts.md). */
function receiptWords(receipts: readonly ReceiptDue[] | undefined): string {
  if (!receipts || receipts.length === 0) return '–';
  return receipts
    .map((r) => (r.kind === 'outcome' ? `outcome ${r.outcome}${r.late ? ` (late: ${r.late})` : ''}${r.corrects ? ' (correction)' : ''}` : r.kind))
    .join('; ');
}

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
      '| event | from | to | by | guards | effects | receipts |',
      '|---|---|---|---|---|---|---|',
      ...machine.transitions.map(
        (row) =>
          `| \`${type}.${row.event}\`${row.unlisted ? ' (fired by cancel_item)' : ''} | ${row.from.join(', ')} | ${row.to ?? '(stays)'} | ${row.by.join(', ')} | ${
            row.guards.join(', ') || '–'
          } | ${row.effects.join(', ') || '–'} | ${receiptWords(row.receipts)} |`,
      ),
      '',
    ];
    sections.push(lines.join('\n'));
  }
  return sections.join('\n');
}
