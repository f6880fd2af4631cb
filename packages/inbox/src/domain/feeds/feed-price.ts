/**
 * Reads a feed price such as "12.50 EUR" into integer minor units of its currency (ISO 4217): JPY
 * has no minor unit, KWD three decimals, CLF four. A price is never rounded or guessed: a form
 * that could mean two amounts, or has more decimals than its currency, is refused with a reason.
 */

/** ISO 4217 exponents that are not 2 (current list); every other code has 2. */
const ISO_4217_EXPONENTS: Readonly<Record<string, number>> = Object.freeze({
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
});
/** Codes without a minor unit in ISO 4217 (metals, drawing rights, test codes): nothing is priced in them. */
const NOT_FOR_PRICES = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

let knownCurrencies: ReadonlySet<string> | null = null;

/** Whether a code is a currency ISO 4217 lists (as the runtime's Intl data knows it). */
export function isPriceCurrency(code: string): boolean {
  knownCurrencies ??= new Set(Intl.supportedValuesOf('currency'));
  return knownCurrencies.has(code) && !NOT_FOR_PRICES.has(code);
}

export function minorUnitDigits(currency: string): number {
  return ISO_4217_EXPONENTS[currency] ?? 2;
}

export type PriceReading = { ok: true; amountMinor: number; currency: string } | { ok: false; reason: string };

export function readFeedPrice(text: string): PriceReading {
  const value = text.trim().replace(/\s+/g, ' ');
  const parts = /^([A-Za-z]{3}) ?([^A-Za-z ]+)$/.exec(value) ?? /^([^A-Za-z ]+) ?([A-Za-z]{3})$/.exec(value);
  if (!parts) {
    if (/^[\d.,]+$/.test(value)) return { ok: false, reason: `price "${clip(text)}" names no currency (write it as "12.50 EUR")` };
    return { ok: false, reason: `price "${clip(text)}" is not an amount and an ISO 4217 currency (such as "12.50 EUR")` };
  }
  const [first, second] = [parts[1] as string, parts[2] as string];
  const [number, code] = /^[A-Za-z]{3}$/.test(first) ? [second, first] : [first, second];
  const currency = code.toUpperCase();
  if (!isPriceCurrency(currency)) return { ok: false, reason: `price "${clip(text)}" has an unknown currency ${currency}` };
  const amount = readAmount(number);
  if (!amount.ok) return { ok: false, reason: `price "${clip(text)}" ${amount.reason}` };
  const digits = minorUnitDigits(currency);
  const fraction = amount.fraction.replace(/0+$/, '');
  if (fraction.length > digits) {
    return { ok: false, reason: `price "${clip(text)}" has more decimals than ${currency} has (${digits})` };
  }
  const minor = BigInt(amount.whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0');
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, reason: `price "${clip(text)}" is too large` };
  return { ok: true, amountMinor: Number(minor), currency };
}

type AmountReading = { ok: true; whole: string; fraction: string } | { ok: false; reason: string };

/** "1299.5", "1,299.50" (comma groups) and "12,50" (comma decimals) are read; "1,299" could be either and is not. */
function readAmount(number: string): AmountReading {
  if (/^-/.test(number)) return { ok: false, reason: 'is negative' };
  let match = /^(\d+)(?:\.(\d+))?$/.exec(number);
  if (match) return { ok: true, whole: match[1] as string, fraction: match[2] ?? '' };
  match = /^(\d{1,3}(?:,\d{3})+)\.(\d+)$/.exec(number);
  if (match) return { ok: true, whole: (match[1] as string).replace(/,/g, ''), fraction: match[2] as string };
  if (/^\d{1,3}(?:,\d{3})+$/.test(number)) return { ok: false, reason: 'could mean two amounts; write decimals with a dot' };
  match = /^(\d+),(\d+)$/.exec(number);
  if (match) return { ok: true, whole: match[1] as string, fraction: match[2] as string };
  return { ok: false, reason: 'is not a number' };
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
