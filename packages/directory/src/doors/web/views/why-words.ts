/**
 * A listing's `why` in the page's language. The API writes it in English from a few fixed sentences
 * (ranking/hourly-order.ts whyPlaced, listings/why-now.ts); a Portuguese page showed them as they were
 * (issue 38: "Porquê aqui: Place 1852 in this hour's order (rules 6)…"). Each sentence is matched
 * whole and written in the page's language with its numbers as the language writes them; a sentence
 * not known here stays English, marked so (test/why-words.test.ts holds every sentence the rules can
 * write to a translation, so a new one fails there first).
 */
import { wholeNumber } from './words.js';

interface Rule {
  pattern: RegExp;
  write: (m: RegExpExecArray, lang: string) => string;
}

const decimal = (lang: string, text: string) => (lang === 'pt' ? text.replace('.', ',') : text);

const PT: Rule[] = [
  { pattern: /^Place (\d+) in this hour's order \(rules (\d+)\)\.$/, write: (m, lang) => `Lugar ${wholeNumber(lang, Number(m[1]))} na ordem desta hora (regras ${m[2]}).` },
  { pattern: /^Not a member, so it comes after every member\.$/, write: () => 'Não é membro, por isso vem depois de todos os membros.' },
  { pattern: /^A member whose inbox answered in the last day\.$/, write: () => 'Membro cuja caixa de entrada respondeu no último dia.' },
  { pattern: /^A member whose inbox has not answered in the last day\.$/, write: () => 'Membro cuja caixa de entrada não respondeu no último dia.' },
  { pattern: /^Reachable now: a member whose inbox answered in the last day\.$/, write: () => 'Contactável agora: membro cuja caixa de entrada respondeu no último dia.' },
  {
    pattern: /^Reachable through a live agent door; higher readiness levels come first\.$/,
    write: () => 'Contactável por uma porta para agentes a funcionar; os níveis de preparação mais altos vêm primeiro.',
  },
  {
    pattern: /^No door answered recently, so it comes after businesses that can be reached now\.$/,
    write: () => 'Nenhuma porta respondeu recentemente, por isso vem depois dos negócios que se podem contactar agora.',
  },
  { pattern: /^Ranked by its reputation \(score ([\d.]+)\)\.$/, write: (m, lang) => `Ordenado pela sua reputação (pontuação ${decimal(lang, m[1] as string)}).` },
  { pattern: /^Not ranked by reputation yet, so placed by today's shuffle\.$/, write: () => 'Ainda sem reputação que o ordene, por isso colocado pelo sorteio de hoje.' },
  { pattern: /^The directory could not read its inbox\u2019s manifest at its last check\.$/, write: () => 'O diretório não conseguiu ler o manifesto da sua caixa de entrada na última verificação.' },
  {
    pattern: /^Its place was set when this hour's order was made \((\d\d:\d\d) UTC\), while its inbox still counted as answering; the next hour's order places it as it is now\.$/,
    write: (m) => `O lugar foi fixado quando a ordem desta hora foi feita (${m[1]} UTC), quando a caixa de entrada ainda contava como a responder; a ordem da próxima hora coloca-o como está agora.`,
  },
  {
    pattern: /^Its place was set when this hour's order was made \((\d\d:\d\d) UTC\), before its inbox answered again; the next hour's order places it as it is now\.$/,
    write: (m) => `O lugar foi fixado quando a ordem desta hora foi feita (${m[1]} UTC), antes de a caixa de entrada voltar a responder; a ordem da próxima hora coloca-o como está agora.`,
  },
];

/** The API's sentences, one by one (each ends at a full stop followed by a space and a capital, or at the end). */
export function whySentences(why: string): string[] {
  return why.split(/(?<=\.)\s+(?=[A-Z])/).filter((s) => s !== '');
}

export interface WhyPart {
  text: string;
  /** The language it is written in (the page's, or English when no translation is known). */
  lang: string;
}

/** The `why` as parts in the page's language (English ones for a sentence not known). */
export function whyInLanguage(why: string, lang: string): WhyPart[] {
  if (lang === 'en') return [{ text: why, lang }];
  return whySentences(why).map((sentence) => {
    for (const rule of PT) {
      const m = rule.pattern.exec(sentence);
      if (m) return { text: rule.write(m, lang), lang };
    }
    return { text: sentence, lang: 'en' };
  });
}
