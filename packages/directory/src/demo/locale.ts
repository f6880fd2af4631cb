/**
 * Per-country facts the demo generator needs: the language names are written in, the language tags a
 * business lists, the usual domain suffix, local payment methods and postal code shapes.
 */
import type { NameLang } from './listing-vocab.js';

const PT = ['PT', 'BR', 'AO', 'MZ', 'CV', 'GW', 'ST', 'TL'];
const ES = ['ES', 'MX', 'AR', 'CO', 'CL', 'PE', 'VE', 'EC', 'GT', 'CU', 'BO', 'DO', 'HN', 'PY', 'SV', 'NI', 'CR', 'PA', 'UY', 'PR', 'GQ'];
const FR = ['FR', 'LU', 'MC', 'SN', 'CI', 'CM', 'ML', 'BF', 'NE', 'TN', 'MA', 'DZ', 'HT', 'CD', 'CG', 'MG', 'BJ', 'TG', 'GN', 'GA', 'TD', 'CF', 'BI', 'RW', 'DJ', 'KM', 'NC', 'PF', 'RE', 'GP', 'MQ', 'GF', 'YT'];
const DE = ['DE', 'AT', 'LI'];
const IT = ['IT', 'SM', 'VA'];

const NAME_LANG = new Map<string, NameLang>();
for (const c of PT) NAME_LANG.set(c, 'pt');
for (const c of ES) NAME_LANG.set(c, 'es');
for (const c of FR) NAME_LANG.set(c, 'fr');
for (const c of DE) NAME_LANG.set(c, 'de');
for (const c of IT) NAME_LANG.set(c, 'it');

/** Swiss cantons by language (GeoNames admin1 codes); the rest are German-speaking. */
const CH_FRENCH = new Set(['GE', 'VD', 'NE', 'JU', 'FR', 'VS']);

/** The language business names are written in, for a city's country and region. */
export function nameLanguage(country: string, region: string): NameLang {
  if (country === 'CH') return region === 'TI' ? 'it' : CH_FRENCH.has(region) ? 'fr' : 'de';
  if (country === 'BE') return region === 'VLG' ? 'en' : 'fr';
  if (country === 'CA') return region === '10' ? 'fr' : 'en';
  return NAME_LANG.get(country) ?? 'en';
}

/** BCP 47 tags (lowercase) a business of this country lists first. */
const LANGUAGE_TAGS: Record<string, readonly string[]> = {
  PT: ['pt-pt'], BR: ['pt-br'], AO: ['pt'], MZ: ['pt'], CV: ['pt'],
  ES: ['es'], MX: ['es-mx'], AR: ['es-ar'], CO: ['es-co'], CL: ['es-cl'], PE: ['es-pe'], VE: ['es-ve'], UY: ['es-uy'],
  EC: ['es'], GT: ['es'], CU: ['es'], BO: ['es'], DO: ['es'], HN: ['es'], PY: ['es', 'gn'], SV: ['es'], NI: ['es'], CR: ['es'], PA: ['es'], PR: ['es', 'en'],
  FR: ['fr'], LU: ['fr', 'lb', 'de'], MC: ['fr'], SN: ['fr', 'wo'], CI: ['fr'], CM: ['fr', 'en'], ML: ['fr'], BF: ['fr'], NE: ['fr'], CD: ['fr'], CG: ['fr'],
  TN: ['ar', 'fr'], MA: ['ar', 'fr'], DZ: ['ar', 'fr'], HT: ['fr', 'ht'], MG: ['mg', 'fr'], BJ: ['fr'], TG: ['fr'], GN: ['fr'], GA: ['fr'], RE: ['fr'],
  DE: ['de'], AT: ['de-at'], LI: ['de'], IT: ['it'], SM: ['it'],
  US: ['en-us'], GB: ['en-gb'], IE: ['en', 'ga'], AU: ['en-au'], NZ: ['en-nz'], ZA: ['en', 'af'], NG: ['en'], GH: ['en'], KE: ['en', 'sw'], TZ: ['sw', 'en'], UG: ['en'], ZW: ['en'], ZM: ['en'],
  ET: ['am'], NL: ['nl'], SE: ['sv'], NO: ['nb'], DK: ['da'], FI: ['fi'], IS: ['is'], PL: ['pl'], CZ: ['cs'], SK: ['sk'], HU: ['hu'], RO: ['ro'], BG: ['bg'],
  GR: ['el'], HR: ['hr'], RS: ['sr'], SI: ['sl'], LT: ['lt'], LV: ['lv'], EE: ['et'], UA: ['uk'], BY: ['be', 'ru'], RU: ['ru'], KZ: ['kk', 'ru'], UZ: ['uz'],
  TR: ['tr'], AZ: ['az'], GE: ['ka'], AM: ['hy'], IL: ['he'], IR: ['fa'], AF: ['fa', 'ps'], PK: ['ur', 'en'], IN: ['hi', 'en'], BD: ['bn'], NP: ['ne'], LK: ['si', 'ta'],
  CN: ['zh-cn'], TW: ['zh-tw'], HK: ['zh-hk', 'en'], MO: ['zh-hk', 'pt'], JP: ['ja'], KR: ['ko'], TH: ['th'], VN: ['vi'], KH: ['km'], LA: ['lo'], MM: ['my'],
  ID: ['id'], MY: ['ms', 'en'], SG: ['en', 'zh'], PH: ['fil', 'en'],
  EG: ['ar'], SA: ['ar'], AE: ['ar', 'en'], IQ: ['ar'], SY: ['ar'], JO: ['ar'], LB: ['ar', 'fr'], SD: ['ar'], LY: ['ar'], YE: ['ar'], KW: ['ar'], QA: ['ar', 'en'], OM: ['ar'],
};

export function languageTags(country: string, region: string): readonly string[] {
  if (country === 'CH') return region === 'TI' ? ['it-ch'] : CH_FRENCH.has(region) ? ['fr-ch'] : ['de-ch'];
  if (country === 'BE') return region === 'VLG' ? ['nl-be'] : region === 'BRU' ? ['fr-be', 'nl-be'] : ['fr-be'];
  if (country === 'CA') return region === '10' ? ['fr-ca'] : ['en-ca'];
  return LANGUAGE_TAGS[country] ?? ['en'];
}

const TLDS: Record<string, string> = {
  GB: 'co.uk', BR: 'com.br', MX: 'com.mx', AR: 'com.ar', CO: 'com.co', AU: 'com.au', NZ: 'co.nz', ZA: 'co.za',
  NG: 'com.ng', TR: 'com.tr', KR: 'co.kr', IN: 'in', ID: 'co.id', CN: 'cn', JP: 'jp', US: 'com', EG: 'com.eg',
  PK: 'pk', BD: 'com.bd', PE: 'pe', CL: 'cl', VE: 'com.ve', PH: 'ph', MY: 'com.my', TH: 'co.th', VN: 'vn',
  UA: 'com.ua', KE: 'co.ke', GH: 'com.gh', SA: 'com.sa', IL: 'co.il', TW: 'com.tw', HK: 'com.hk',
};

/** The domain suffix a business of this country most likely uses. */
export function countryTld(country: string): string {
  return TLDS[country] ?? country.toLowerCase();
}

/**
 * Local payment methods and wallets by country: tokens of GET /v1/attributes (vocab/attributes.ts
 * PAYMENTS), one spelling each (MobilePay is `vipps_mobilepay`, SEPA direct debit
 * `sepa_direct_debit`; giropay closed in 2024 and is not offered).
 */
export const LOCAL_PAYMENTS: Record<string, readonly string[]> = {
  PT: ['mb_way', 'multibanco'], BR: ['pix', 'boleto'], ES: ['bizum'], NL: ['ideal'], BE: ['bancontact'], CH: ['twint'],
  SE: ['swish'], DK: ['vipps_mobilepay'], FI: ['vipps_mobilepay'], NO: ['vipps_mobilepay'], PL: ['blik'], IN: ['upi'], CN: ['alipay', 'wechat_pay'],
  KE: ['mpesa'], TZ: ['mpesa'], DE: ['sepa_direct_debit'], AT: ['eps', 'sepa_direct_debit'], FR: ['cb'], IT: ['satispay'], MX: ['oxxo', 'mercado_pago'],
  JP: ['paypay'], KR: ['kakaopay'], ID: ['gopay'], PH: ['gcash'], TH: ['promptpay'], SG: ['paynow'], MY: ['grabpay'],
};

/** A postal code of the usual shape for the country (digits from `digit`), or undefined. */
export function postalCode(country: string, digit: () => number, letter: () => string): string | undefined {
  const d = (n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += String(digit());
    return s;
  };
  switch (country) {
    case 'PT':
      return `${1 + (digit() % 9)}${d(3)}-${d(3)}`;
    case 'BR':
      return `${d(5)}-${d(3)}`;
    case 'ES':
    case 'FR':
    case 'DE':
    case 'IT':
    case 'US':
    case 'MX':
      return `${1 + (digit() % 9)}${d(4)}`;
    case 'AT':
    case 'CH':
    case 'BE':
    case 'LU':
    case 'DK':
    case 'AU':
      return `${1 + (digit() % 9)}${d(3)}`;
    case 'NL':
      return `${1 + (digit() % 9)}${d(3)} ${letter()}${letter()}`;
    case 'GB':
      return `${letter()}${letter()}${1 + (digit() % 9)} ${digit()}${letter()}${letter()}`;
    case 'CA':
      return `${letter()}${digit()}${letter()} ${digit()}${letter()}${digit()}`;
    default:
      return undefined;
  }
}
