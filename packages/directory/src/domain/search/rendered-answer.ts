/**
 * A search answer assembled as JSON text (see listing-page.ts). The HTTP door sends the text as it
 * is; the objects are made only when something reads them (the MCP door, output checks), by parsing
 * that same text, so every door shows the same answer.
 */

export interface SearchAnswer {
  businesses: Record<string, unknown>[];
  next_cursor: string | null;
}

const texts = new WeakMap<object, Buffer>();

/** An answer whose JSON is `json` (its UTF-8 bytes); its `businesses` are parsed from it on first read. */
export function renderedAnswer(json: Buffer): SearchAnswer {
  let parsed: SearchAnswer | undefined;
  const read = (): SearchAnswer => (parsed ??= JSON.parse(json.toString('utf8')) as SearchAnswer);
  const answer = {} as SearchAnswer;
  // In this order, so that JSON.stringify of the object gives `json` again.
  Object.defineProperty(answer, 'businesses', { enumerable: true, get: () => read().businesses });
  Object.defineProperty(answer, 'next_cursor', { enumerable: true, get: () => read().next_cursor });
  texts.set(answer, json);
  return answer;
}

/** The JSON an answer was assembled as, in UTF-8, if it was. */
export function renderedBytesOf(body: unknown): Buffer | undefined {
  return typeof body === 'object' && body !== null ? texts.get(body) : undefined;
}

/** Names `json` as the JSON of `answer`, an answer already serialised (a kept business view): the door sends these bytes. */
export function keepRenderedBytes(answer: object, json: Buffer): void {
  texts.set(answer, json);
}
