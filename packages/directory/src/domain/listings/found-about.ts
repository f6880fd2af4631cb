/**
 * The page every found listing's `found.about_url` points to (directory spec §2 Listing `found`):
 * why the business is listed, what is shown of it, how to correct the entry and how to opt out, in
 * the listing's language where the page has one (English otherwise). It lives under the directory's
 * own public URL, so every about_url the directory emits is answered by the directory itself.
 */
import type { ListingRecord } from './listing.js';
import { isListed } from './regulated.js';

export const ABOUT_LANGUAGES = ['en', 'pt', 'es', 'fr', 'de'] as const;
export type AboutLanguage = (typeof ABOUT_LANGUAGES)[number];

/** The path of a found listing's page, under the directory's public URL. */
export function aboutFoundUrl(baseUrl: string, domain: string): string {
  return `${baseUrl}/about/found/${encodeURIComponent(domain)}`;
}

interface Words {
  /** The language's own name, for the links between languages. */
  self: string;
  title: (name: string) => string;
  intro: (name: string, domain: string, date: string) => string;
  headings: { shown: string; why: string; correct: string; optOut: string; entry: string; languages: string };
  shown: string;
  why: string;
  correct: string;
  optOut: string;
  entry: string;
}

const WORDS: Readonly<Record<AboutLanguage, Words>> = {
  en: {
    self: 'English',
    title: (name) => `Why ${name} is in this directory`,
    intro: (name, domain, date) =>
      `${name} (${domain}) is listed because this directory found it on its own website and checked it on ${date}. It is not a member of the directory and has not claimed this entry.`,
    headings: { shown: 'What is shown', why: 'Why it is listed', correct: 'How to correct it', optOut: 'How to opt out', entry: 'The entry as agents read it', languages: 'This page in' },
    shown:
      'Only what the business publishes about itself on its own website: its name, description, town, opening hours, services, categories, the payments it takes and the doors it offers to AI agents (such as an MCP server or an API), each with where and when it was seen. Never a phone number, an e-mail address or anything about a person or a customer. Until the business claims the entry, its street is not shown and its location is rounded to about a kilometre.',
    why: "The directory helps people's AI agents find businesses and reach them through the doors those businesses publish. It takes no bookings, orders or payments itself, and its order is published and cannot be bought.",
    correct:
      'Correct it on your own website: the directory shows what your site publishes and takes the change at its next check. To speak for the business yourself, claim the entry: set up this network\'s inbox on your domain and register it with the directory (POST /v1/instances with your domain); the entry then comes from your inbox, in your own words.',
    optOut:
      'Tell AI systems not to use your site: a Content-Signal line with ai-input=no (or ai-train=no) in your robots.txt. At its next check the directory removes the entry, and does not list it again while the signal stays. A business that is a member decides through its own inbox instead.',
    entry: 'The same entry in JSON, as AI agents read it:',
  },
  pt: {
    self: 'Português',
    title: (name) => `Porque é que ${name} está neste diretório`,
    intro: (name, domain, date) =>
      `O negócio ${name} (${domain}) está listado porque este diretório o encontrou no seu próprio site e o verificou em ${date}. Não é membro do diretório e não reclamou esta entrada.`,
    headings: { shown: 'O que é mostrado', why: 'Porque está listado', correct: 'Como corrigir', optOut: 'Como sair', entry: 'A entrada tal como os agentes a leem', languages: 'Esta página em' },
    shown:
      'Apenas o que o negócio publica sobre si no seu próprio site: nome, descrição, localidade, horário, serviços, categorias, os pagamentos que aceita e as portas que oferece a agentes de IA (como um servidor MCP ou uma API), cada um com onde e quando foi visto. Nunca um número de telefone, um endereço de e-mail ou algo sobre uma pessoa ou um cliente. Enquanto o negócio não reclamar a entrada, a rua não é mostrada e a localização é arredondada a cerca de um quilómetro.',
    why: 'O diretório ajuda os agentes de IA das pessoas a encontrar negócios e a chegar até eles pelas portas que esses negócios publicam. Não recebe reservas, encomendas nem pagamentos, e a sua ordem é pública e não se pode comprar.',
    correct:
      'Corrija-a no seu próprio site: o diretório mostra o que o seu site publica e recebe a alteração na próxima verificação. Para falar em nome do negócio, reclame a entrada: instale a caixa de entrada desta rede no seu domínio e registe-a no diretório (POST /v1/instances com o seu domínio); a entrada passa a vir da sua caixa de entrada, com as suas próprias palavras.',
    optOut:
      'Diga aos sistemas de IA que não usem o seu site: uma linha Content-Signal com ai-input=no (ou ai-train=no) no seu robots.txt. Na próxima verificação o diretório retira a entrada e não a volta a listar enquanto o sinal se mantiver. Um negócio membro decide na sua própria caixa de entrada.',
    entry: 'A mesma entrada em JSON, tal como os agentes de IA a leem:',
  },
  es: {
    self: 'Español',
    title: (name) => `Por qué ${name} está en este directorio`,
    intro: (name, domain, date) =>
      `El negocio ${name} (${domain}) aparece porque este directorio lo encontró en su propio sitio web y lo comprobó el ${date}. No es miembro del directorio y no ha reclamado esta ficha.`,
    headings: { shown: 'Qué se muestra', why: 'Por qué aparece', correct: 'Cómo corregirla', optOut: 'Cómo darse de baja', entry: 'La ficha tal como la leen los agentes', languages: 'Esta página en' },
    shown:
      'Solo lo que el negocio publica sobre sí mismo en su propio sitio web: nombre, descripción, localidad, horario, servicios, categorías, los pagos que acepta y las puertas que ofrece a los agentes de IA (como un servidor MCP o una API), cada dato con dónde y cuándo se vio. Nunca un número de teléfono, una dirección de correo electrónico ni nada sobre una persona o un cliente. Mientras el negocio no reclame la ficha, no se muestra la calle y la ubicación se redondea a un kilómetro aproximadamente.',
    why: 'El directorio ayuda a los agentes de IA de las personas a encontrar negocios y a llegar a ellos por las puertas que esos negocios publican. No acepta reservas, pedidos ni pagos, y su orden es público y no se puede comprar.',
    correct:
      'Corríjala en su propio sitio web: el directorio muestra lo que publica su sitio y recoge el cambio en la siguiente comprobación. Para hablar usted en nombre del negocio, reclame la ficha: instale la bandeja de entrada de esta red en su dominio y regístrela en el directorio (POST /v1/instances con su dominio); la ficha pasará a venir de su bandeja de entrada, con sus propias palabras.',
    optOut:
      'Indique a los sistemas de IA que no usen su sitio: una línea Content-Signal con ai-input=no (o ai-train=no) en su robots.txt. En la siguiente comprobación el directorio retira la ficha y no vuelve a mostrarla mientras se mantenga la señal. Un negocio miembro lo decide en su propia bandeja de entrada.',
    entry: 'La misma ficha en JSON, tal como la leen los agentes de IA:',
  },
  fr: {
    self: 'Français',
    title: (name) => `Pourquoi ${name} figure dans cet annuaire`,
    intro: (name, domain, date) =>
      `L’entreprise ${name} (${domain}) figure ici parce que cet annuaire l’a trouvée sur son propre site web et l’a vérifiée le ${date}. Elle n’est pas membre de l’annuaire et n’a pas revendiqué cette fiche.`,
    headings: { shown: 'Ce qui est affiché', why: 'Pourquoi elle figure ici', correct: 'Comment la corriger', optOut: 'Comment se retirer', entry: 'La fiche telle que les agents la lisent', languages: 'Cette page en' },
    shown:
      'Seulement ce que l’entreprise publie sur elle-même sur son propre site : nom, description, ville, horaires, services, catégories, moyens de paiement acceptés et portes qu’elle ouvre aux agents d’IA (comme un serveur MCP ou une API), chacun avec l’endroit et la date où il a été vu. Jamais un numéro de téléphone, une adresse e-mail ni quoi que ce soit sur une personne ou un client. Tant que l’entreprise n’a pas revendiqué la fiche, la rue n’est pas affichée et l’emplacement est arrondi à environ un kilomètre.',
    why: 'L’annuaire aide les agents d’IA des gens à trouver des entreprises et à les joindre par les portes que ces entreprises publient. Il ne prend lui-même ni réservations, ni commandes, ni paiements, et son classement est public et ne s’achète pas.',
    correct:
      'Corrigez-la sur votre propre site : l’annuaire affiche ce que votre site publie et prend en compte la modification à la vérification suivante. Pour parler vous-même au nom de l’entreprise, revendiquez la fiche : installez la boîte de réception de ce réseau sur votre domaine et enregistrez-la auprès de l’annuaire (POST /v1/instances avec votre domaine) ; la fiche viendra alors de votre boîte de réception, avec vos propres mots.',
    optOut:
      'Indiquez aux systèmes d’IA de ne pas utiliser votre site : une ligne Content-Signal avec ai-input=no (ou ai-train=no) dans votre robots.txt. À la vérification suivante, l’annuaire retire la fiche et ne la publie plus tant que le signal reste en place. Une entreprise membre en décide dans sa propre boîte de réception.',
    entry: 'La même fiche en JSON, telle que les agents d’IA la lisent :',
  },
  de: {
    self: 'Deutsch',
    title: (name) => `Warum ${name} in diesem Verzeichnis steht`,
    intro: (name, domain, date) =>
      `${name} (${domain}) steht hier, weil dieses Verzeichnis das Unternehmen auf seiner eigenen Website gefunden und am ${date} geprüft hat. Es ist kein Mitglied des Verzeichnisses und hat diesen Eintrag nicht beansprucht.`,
    headings: { shown: 'Was gezeigt wird', why: 'Warum es hier steht', correct: 'Wie man den Eintrag korrigiert', optOut: 'Wie man sich austrägt', entry: 'Der Eintrag, wie Agenten ihn lesen', languages: 'Diese Seite auf' },
    shown:
      'Nur, was das Unternehmen auf seiner eigenen Website über sich veröffentlicht: Name, Beschreibung, Ort, Öffnungszeiten, Leistungen, Kategorien, die angenommenen Zahlungsarten und die Zugänge für KI-Agenten (etwa einen MCP-Server oder eine API), jeweils mit Fundstelle und Datum. Nie eine Telefonnummer, eine E-Mail-Adresse oder etwas über eine Person oder einen Kunden. Solange das Unternehmen den Eintrag nicht beansprucht, wird die Straße nicht gezeigt und der Standort auf etwa einen Kilometer gerundet.',
    why: 'Das Verzeichnis hilft den KI-Agenten von Menschen, Unternehmen zu finden und sie über die Zugänge zu erreichen, die diese Unternehmen veröffentlichen. Es nimmt selbst keine Buchungen, Bestellungen oder Zahlungen an, und seine Reihenfolge ist öffentlich und nicht käuflich.',
    correct:
      'Korrigieren Sie ihn auf Ihrer eigenen Website: Das Verzeichnis zeigt, was Ihre Website veröffentlicht, und übernimmt die Änderung bei der nächsten Prüfung. Um selbst für das Unternehmen zu sprechen, beanspruchen Sie den Eintrag: Richten Sie den Posteingang dieses Netzwerks auf Ihrer Domain ein und registrieren Sie ihn beim Verzeichnis (POST /v1/instances mit Ihrer Domain); der Eintrag kommt dann aus Ihrem Posteingang, in Ihren eigenen Worten.',
    optOut:
      'Sagen Sie KI-Systemen, dass sie Ihre Website nicht nutzen sollen: eine Content-Signal-Zeile mit ai-input=no (oder ai-train=no) in Ihrer robots.txt. Bei der nächsten Prüfung entfernt das Verzeichnis den Eintrag und listet ihn nicht wieder, solange das Signal besteht. Ein Mitgliedsunternehmen entscheidet darüber in seinem eigenen Posteingang.',
    entry: 'Derselbe Eintrag als JSON, wie KI-Agenten ihn lesen:',
  },
};

function isAboutLanguage(value: string): value is AboutLanguage {
  return (ABOUT_LANGUAGES as readonly string[]).includes(value);
}

/** The listing's first language this page is written in (pt-BR → pt), else English. */
export function aboutLanguageOf(languages: readonly string[]): AboutLanguage {
  for (const tag of languages) {
    const primary = tag.toLowerCase().split('-')[0] ?? '';
    if (isAboutLanguage(primary)) return primary;
  }
  return 'en';
}

/** A `lang` asked for by the reader, when the page is written in it; otherwise undefined. */
export function askedAboutLanguage(lang: unknown): AboutLanguage | undefined {
  if (typeof lang !== 'string') return undefined;
  const primary = lang.toLowerCase().split('-')[0] ?? '';
  return isAboutLanguage(primary) ? primary : undefined;
}

/** Whether a listing has an about page: a business the service found, listed in the directory (not gone, set aside or in a members-only category). */
export function hasAboutPage(listing: ListingRecord | null): listing is ListingRecord & { found: NonNullable<ListingRecord['found']> } {
  return listing !== null && listing.source === 'found' && listing.found !== null && isListed(listing);
}

/** The page as JSON (also what the HTML page is written from). */
export interface FoundAboutDocument {
  domain: string;
  name: string;
  language: AboutLanguage;
  title: string;
  checked_at: string;
  about_url: string;
  listing_url: string;
  website: string | null;
  sections: { intro: string; shown: string; why: string; correct: string; opt_out: string };
  headings: Words['headings'];
  entry: string;
  languages: { language: AboutLanguage; name: string; url: string }[];
}

export function foundAboutDocument(
  listing: ListingRecord & { found: NonNullable<ListingRecord['found']> },
  baseUrl: string,
  language: AboutLanguage,
): FoundAboutDocument {
  const words = WORDS[language];
  const date = new Date(listing.found.checkedAt).toISOString().slice(0, 10);
  const aboutUrl = aboutFoundUrl(baseUrl, listing.domain);
  return {
    domain: listing.domain,
    name: listing.name,
    language,
    title: words.title(listing.name),
    checked_at: new Date(listing.found.checkedAt).toISOString(),
    about_url: aboutUrl,
    listing_url: `${baseUrl}/v1/businesses/${encodeURIComponent(listing.domain)}`,
    website: listing.url !== null && /^https?:\/\//i.test(listing.url) ? listing.url : null,
    sections: {
      intro: words.intro(listing.name, listing.domain, date),
      shown: words.shown,
      why: words.why,
      correct: words.correct,
      opt_out: words.optOut,
    },
    headings: words.headings,
    entry: words.entry,
    languages: ABOUT_LANGUAGES.map((l) => ({ language: l, name: WORDS[l].self, url: `${aboutUrl}?lang=${l}` })),
  };
}

/** Text and double-quoted attribute values of the page (every attribute is quoted). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page's only style, allowed by its hash in the page's Content-Security-Policy. */
export const ABOUT_STYLE =
  'body{font:16px/1.55 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}main{max-width:40rem;margin:2rem auto;background:#fff;border:1px solid #ddd;border-radius:10px;padding:1.5rem 1.75rem}h1{font-size:1.35rem}h2{font-size:1.05rem;margin-top:1.4rem}nav{font-size:.9rem;color:#555}a{color:#1d4f7a;word-break:break-all}';

export function renderFoundAboutHtml(doc: FoundAboutDocument): string {
  const e = escapeHtml;
  const section = (heading: string, text: string) => `<h2>${e(heading)}</h2>\n<p>${e(text)}</p>`;
  const others = doc.languages
    .map((l) => (l.language === doc.language ? `<strong>${e(l.name)}</strong>` : `<a href="${e(l.url)}" hreflang="${l.language}" lang="${l.language}">${e(l.name)}</a>`))
    .join(' · ');
  return `<!doctype html>
<html lang="${doc.language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><meta name="referrer" content="no-referrer">
<title>${e(doc.title)}</title>
<link rel="alternate" type="application/json" href="${e(`${doc.about_url}.json?lang=${doc.language}`)}">
<style>${ABOUT_STYLE}</style></head>
<body><main>
<h1>${e(doc.title)}</h1>
<p>${e(doc.sections.intro)}</p>
${section(doc.headings.shown, doc.sections.shown)}
${section(doc.headings.why, doc.sections.why)}
${section(doc.headings.correct, doc.sections.correct)}
${section(doc.headings.optOut, doc.sections.opt_out)}
<h2>${e(doc.headings.entry)}</h2>
<p>${e(doc.entry)} <a href="${e(doc.listing_url)}">${e(doc.listing_url)}</a>${doc.website ? `<br><a href="${e(doc.website)}" rel="nofollow noopener">${e(doc.website)}</a>` : ''}</p>
<nav>${e(doc.headings.languages)}: ${others}</nav>
</main></body></html>
`;
}
