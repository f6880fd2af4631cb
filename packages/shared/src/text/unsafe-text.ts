/**
 * Characters no text field of a request may hold (issue 19, docs/security.md "Strict inputs"):
 * C0 controls, DEL and C1 controls, the bidi marks, embeddings, overrides and isolates that make a
 * text read otherwise than it is stored (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), and lone
 * surrogates (half a character, which no encoder can write out). Tab, line feed and carriage return
 * are kept in multi-line texts (messages, descriptions, notes) and refused in single-line ones.
 *
 * A refusal names where the character is and which one it is (U+001B), never the text itself.
 */
import type { FieldProblem } from '../errors/problem.js';

// Ranges written as escapes so no such character sits in this file.
const ALWAYS = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069\\uD800-\\uDFFF';
/** With the `u` flag a surrogate range matches only a lone surrogate: a pair is one code point. */
const MULTI_LINE_UNSAFE = new RegExp(`[${ALWAYS}]`, 'u');
const SINGLE_LINE_UNSAFE = new RegExp(`[${ALWAYS}\\t\\n\\r]`, 'u');
const ANY_UNSAFE_GLOBAL = new RegExp(`[${ALWAYS}\\t\\n\\r]`, 'gu');

/** The first character a text may not hold, as `U+XXXX`, or null when the text is clean. */
export function unsafeCharacterIn(text: string, multiLine: boolean): string | null {
  const match = (multiLine ? MULTI_LINE_UNSAFE : SINGLE_LINE_UNSAFE).exec(text);
  if (!match) return null;
  return codePointName(match[0]);
}

function codePointName(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A text with every unsafe character written as `\u{XXXX}`, for naming a key without echoing it. */
export function escapeUnsafe(text: string): string {
  return text.replace(ANY_UNSAFE_GLOBAL, (character) => `\\u{${(character.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
}

export interface UnsafeTextOptions {
  /** Whether the string at this path (its property names, array indexes as numbers) may span lines. */
  multiLine: (path: readonly (string | number)[]) => boolean;
  /** Paths longer than this are not walked further (input schemas bound their depth long before). */
  maxDepth?: number;
}

/**
 * Every string in a parsed input, and every property name, checked: one field problem per place
 * holding a character it may not hold. Paths are dotted as the schema refusals' are
 * (`payload.lines.0.name`); a property name that is itself unsafe is named escaped.
 */
export function unsafeTextFields(input: unknown, options: UnsafeTextOptions): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const maxDepth = options.maxDepth ?? 32;
  const visit = (value: unknown, path: (string | number)[]): void => {
    if (path.length > maxDepth) return;
    if (typeof value === 'string') {
      const found = unsafeCharacterIn(value, options.multiLine(path));
      if (found !== null) problems.push(problemAt(path, found, options.multiLine(path)));
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((entry, index) => visit(entry, [...path, index]));
      return;
    }
    if (typeof value === 'object' && value !== null) {
      for (const [key, entry] of Object.entries(value)) {
        const keyProblem = unsafeCharacterIn(key, false);
        if (keyProblem !== null) {
          problems.push({
            path: joinFieldPath([...path, escapeUnsafe(key)]),
            problem: 'invalid',
            message: `This name holds ${keyProblem}, a control or text-direction character; names may not.`,
          });
          continue;
        }
        visit(entry, [...path, key]);
      }
    }
  };
  visit(input, []);
  return problems;
}

function problemAt(path: readonly (string | number)[], found: string, multiLine: boolean): FieldProblem {
  const name = joinFieldPath(path);
  const allowed = multiLine ? 'tab and line breaks are the only control characters it may hold' : 'it is a single line of plain text';
  return { path: name, problem: 'invalid', message: `${name} holds ${found}, a control or text-direction character: ${allowed}.` };
}

function joinFieldPath(path: readonly (string | number)[]): string {
  return path.map(String).join('.') || '(body)';
}
