/**
 * Category groups of GET /v1/categories (directory spec §2 "Categories and attributes", §4).
 *
 * A group is the coarse category a listing carries in `categories`; place categories (taxonomy.ts)
 * sit below the groups. Every group is of kind `local_and_retail` except `software-ai`, whose
 * businesses are kept apart (a search for one kind never returns the other).
 *
 * Labels are given in the five languages of the directory; synonyms are everyday words people and
 * agents use for the group, matched folded (capitals and accents ignored, see fold.ts).
 */

import type { Kind } from '../listings/listing.js';

/** Version of the category list (GET /v1/categories `version`); raise it on any change of slugs. */
export const CATEGORIES_VERSION = 1;

export const GROUP_LANGUAGES = ['en', 'pt', 'es', 'fr', 'de'] as const;
export type GroupLanguage = (typeof GROUP_LANGUAGES)[number];

/** Lowercase letters and digits, hyphen-separated parts, starting with a letter. */
export const SLUG_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

export interface CategoryGroup {
  slug: string;
  kind: Kind;
  labels: Record<GroupLanguage, string>;
  synonyms: Record<GroupLanguage, readonly string[]>;
  /** Set on regulated groups: why businesses that are not members are not listed in them. */
  regulated?: string;
}

type GroupInput = Omit<CategoryGroup, 'kind'> & { kind?: Kind };

/** The sentence GET /c/{id} gives for a place category of a regulated group. */
function regulatedNote(what: string, credential: string): string {
  return (
    `${what} is a regulated profession: only members, who answer for their own listing through their inbox, are listed here. ` +
    `Businesses that are not members are left out, because ${credential} cannot be confirmed from a web page.`
  );
}

const GROUP_INPUT: readonly GroupInput[] = [
  {
    slug: 'restaurant',
    labels: { en: 'Restaurants', pt: 'Restaurantes', es: 'Restaurantes', fr: 'Restaurants', de: 'Restaurants' },
    synonyms: {
      en: ['restaurant', 'diner', 'eatery', 'bistro', 'takeaway', 'fast food', 'pizzeria', 'food', 'dinner', 'lunch'],
      pt: ['restaurante', 'tasca', 'churrascaria', 'marisqueira', 'pizzaria', 'comida', 'almoço', 'jantar', 'take away'],
      es: ['restaurante', 'comedor', 'taberna', 'pizzería', 'comida', 'cena', 'almuerzo'],
      fr: ['restaurant', 'brasserie', 'bistrot', 'pizzeria', 'cuisine', 'dîner', 'déjeuner'],
      de: ['restaurant', 'gaststätte', 'gasthaus', 'imbiss', 'pizzeria', 'essen'],
    },
  },
  {
    slug: 'cafe',
    labels: { en: 'Cafés', pt: 'Cafés', es: 'Cafeterías', fr: 'Cafés', de: 'Cafés' },
    synonyms: {
      en: ['cafe', 'coffee', 'coffee shop', 'espresso', 'tea room', 'tea house', 'ice cream'],
      pt: ['café', 'cafetaria', 'pastelaria', 'esplanada', 'gelataria', 'sorveteria', 'chá'],
      es: ['café', 'cafetería', 'heladería', 'té'],
      fr: ['café', 'salon de thé', 'glacier', 'coffee shop'],
      de: ['café', 'kaffee', 'kaffeehaus', 'teestube', 'eiscafé', 'eisdiele'],
    },
  },
  {
    slug: 'bakery',
    labels: { en: 'Bakeries', pt: 'Padarias', es: 'Panaderías', fr: 'Boulangeries', de: 'Bäckereien' },
    synonyms: {
      en: ['bakery', 'baker', 'bread', 'pastry', 'patisserie', 'cakes'],
      pt: ['padaria', 'padeiro', 'pão', 'confeitaria', 'bolos', 'panificadora'],
      es: ['panadería', 'pastelería', 'pan', 'bollería'],
      fr: ['boulangerie', 'pâtisserie', 'pain', 'viennoiserie'],
      de: ['bäckerei', 'bäcker', 'brot', 'konditorei'],
    },
  },
  {
    slug: 'bar',
    labels: { en: 'Bars and pubs', pt: 'Bares', es: 'Bares', fr: 'Bars', de: 'Bars und Kneipen' },
    synonyms: {
      en: ['bar', 'pub', 'tavern', 'cocktails', 'wine bar', 'brewpub', 'nightclub', 'beer'],
      pt: ['bar', 'cervejaria', 'taberna', 'discoteca', 'cocktails', 'vinho', 'cerveja'],
      es: ['bar', 'pub', 'cervecería', 'coctelería', 'discoteca', 'cerveza'],
      fr: ['bar', 'pub', 'brasserie', 'bar à vin', 'boîte de nuit', 'bière'],
      de: ['bar', 'kneipe', 'pub', 'weinbar', 'biergarten', 'club', 'bier'],
    },
  },
  {
    slug: 'grocery',
    labels: { en: 'Groceries and food shops', pt: 'Mercearias e alimentação', es: 'Alimentación', fr: 'Épiceries', de: 'Lebensmittel' },
    synonyms: {
      en: ['grocery', 'groceries', 'supermarket', 'grocer', 'butcher', 'deli', 'greengrocer', 'market', 'wine shop'],
      pt: ['mercearia', 'supermercado', 'minimercado', 'talho', 'açougue', 'frutaria', 'garrafeira', 'mercado'],
      es: ['supermercado', 'tienda de alimentación', 'carnicería', 'frutería', 'ultramarinos', 'mercado'],
      fr: ['épicerie', 'supermarché', 'boucherie', 'primeur', 'fromagerie', 'marché', 'caviste'],
      de: ['lebensmittel', 'supermarkt', 'metzgerei', 'feinkost', 'markt', 'weinhandlung'],
    },
  },
  {
    slug: 'shop',
    labels: { en: 'Shops', pt: 'Lojas', es: 'Tiendas', fr: 'Magasins', de: 'Geschäfte' },
    synonyms: {
      en: ['shop', 'store', 'retail', 'boutique', 'retailer'],
      pt: ['loja', 'comércio', 'retalho', 'boutique'],
      es: ['tienda', 'comercio', 'boutique'],
      fr: ['magasin', 'boutique', 'commerce'],
      de: ['geschäft', 'laden', 'einzelhandel', 'boutique'],
    },
  },
  {
    slug: 'hair-beauty',
    labels: { en: 'Hair and beauty', pt: 'Cabeleireiro e estética', es: 'Peluquería y belleza', fr: 'Coiffure et beauté', de: 'Friseur und Kosmetik' },
    synonyms: {
      en: ['hairdresser', 'hair', 'hair salon', 'barber', 'beauty salon', 'nails', 'manicure', 'beautician', 'tattoo'],
      pt: ['cabeleireiro', 'cabeleireira', 'cabelo', 'barbeiro', 'barbearia', 'salão', 'estética', 'manicure', 'unhas', 'beleza'],
      es: ['peluquería', 'peluquero', 'barbería', 'salón de belleza', 'estética', 'manicura', 'uñas'],
      fr: ['coiffeur', 'coiffure', 'salon de coiffure', 'barbier', 'institut de beauté', 'esthéticienne', 'manucure', 'ongles'],
      de: ['friseur', 'frisör', 'haare', 'barbier', 'kosmetikstudio', 'nagelstudio', 'maniküre', 'tattoo'],
    },
  },
  {
    slug: 'wellness',
    labels: { en: 'Wellness and spa', pt: 'Bem-estar e spa', es: 'Bienestar y spa', fr: 'Bien-être et spa', de: 'Wellness und Spa' },
    synonyms: {
      en: ['wellness', 'spa', 'massage', 'sauna', 'relaxation', 'holistic'],
      pt: ['bem-estar', 'spa', 'massagem', 'massagens', 'sauna', 'relaxamento'],
      es: ['bienestar', 'spa', 'masaje', 'masajes', 'sauna'],
      fr: ['bien-être', 'spa', 'massage', 'sauna', 'détente'],
      de: ['wellness', 'spa', 'massage', 'sauna', 'entspannung'],
    },
  },
  {
    slug: 'fitness',
    labels: { en: 'Fitness and sport', pt: 'Ginásios e desporto', es: 'Gimnasios y deporte', fr: 'Fitness et sport', de: 'Fitness und Sport' },
    synonyms: {
      en: ['gym', 'fitness', 'yoga', 'pilates', 'crossfit', 'personal trainer', 'martial arts', 'climbing', 'sports club'],
      pt: ['ginásio', 'academia', 'fitness', 'ioga', 'yoga', 'pilates', 'personal trainer', 'artes marciais', 'desporto', 'esporte'],
      es: ['gimnasio', 'fitness', 'yoga', 'pilates', 'entrenador personal', 'artes marciales', 'deporte'],
      fr: ['salle de sport', 'fitness', 'yoga', 'pilates', 'coach sportif', 'arts martiaux', 'sport'],
      de: ['fitnessstudio', 'fitness', 'yoga', 'pilates', 'personal trainer', 'kampfsport', 'sport', 'sportverein'],
    },
  },
  {
    slug: 'health',
    labels: { en: 'Health care', pt: 'Saúde', es: 'Salud', fr: 'Santé', de: 'Gesundheit' },
    synonyms: {
      en: ['doctor', 'physician', 'clinic', 'medical', 'pharmacy', 'gp', 'health', 'optometrist'],
      pt: ['médico', 'médica', 'clínica', 'consultório', 'farmácia', 'saúde', 'centro médico'],
      es: ['médico', 'clínica', 'consultorio', 'farmacia', 'salud'],
      fr: ['médecin', 'clinique', 'cabinet médical', 'pharmacie', 'santé'],
      de: ['arzt', 'ärztin', 'arztpraxis', 'klinik', 'apotheke', 'gesundheit'],
    },
    regulated: regulatedNote('Health care', 'a licence to practise'),
  },
  {
    slug: 'dental',
    labels: { en: 'Dental care', pt: 'Dentistas', es: 'Dentistas', fr: 'Dentistes', de: 'Zahnärzte' },
    synonyms: {
      en: ['dentist', 'dental', 'orthodontist', 'teeth', 'dental clinic', 'hygienist'],
      pt: ['dentista', 'clínica dentária', 'clínica odontológica', 'ortodontista', 'dentes', 'médico dentista'],
      es: ['dentista', 'clínica dental', 'ortodoncista', 'odontólogo', 'dientes'],
      fr: ['dentiste', 'cabinet dentaire', 'orthodontiste', 'dents'],
      de: ['zahnarzt', 'zahnärztin', 'zahnarztpraxis', 'kieferorthopäde', 'zähne'],
    },
    regulated: regulatedNote('Dental care', 'a licence to practise'),
  },
  {
    slug: 'therapy',
    labels: { en: 'Therapy', pt: 'Terapias', es: 'Terapias', fr: 'Thérapies', de: 'Therapie' },
    synonyms: {
      en: ['therapist', 'therapy', 'physiotherapy', 'physio', 'psychologist', 'psychotherapy', 'counselling', 'speech therapy'],
      pt: ['terapeuta', 'terapia', 'fisioterapia', 'fisioterapeuta', 'psicólogo', 'psicóloga', 'psicoterapia', 'terapia da fala'],
      es: ['terapeuta', 'terapia', 'fisioterapia', 'fisioterapeuta', 'psicólogo', 'psicoterapia', 'logopeda'],
      fr: ['thérapeute', 'thérapie', 'kinésithérapeute', 'kiné', 'psychologue', 'psychothérapie', 'orthophoniste'],
      de: ['therapeut', 'therapie', 'physiotherapie', 'krankengymnastik', 'psychologe', 'psychotherapie', 'logopädie'],
    },
    regulated: regulatedNote('Therapy', 'a professional registration'),
  },
  {
    slug: 'trades',
    labels: { en: 'Trades and home services', pt: 'Obras e reparações em casa', es: 'Oficios y reformas', fr: 'Artisans du bâtiment', de: 'Handwerk' },
    synonyms: {
      en: ['plumber', 'electrician', 'builder', 'carpenter', 'painter', 'roofer', 'handyman', 'locksmith', 'contractor', 'renovation'],
      pt: ['canalizador', 'encanador', 'eletricista', 'pedreiro', 'carpinteiro', 'pintor', 'serralheiro', 'obras', 'remodelação', 'faz tudo'],
      es: ['fontanero', 'electricista', 'albañil', 'carpintero', 'pintor', 'cerrajero', 'reformas'],
      fr: ['plombier', 'électricien', 'maçon', 'menuisier', 'peintre', 'serrurier', 'couvreur', 'travaux'],
      de: ['klempner', 'installateur', 'elektriker', 'maurer', 'schreiner', 'tischler', 'maler', 'schlüsseldienst', 'dachdecker'],
    },
  },
  {
    slug: 'cleaning',
    labels: { en: 'Cleaning and laundry', pt: 'Limpezas e lavandaria', es: 'Limpieza y lavandería', fr: 'Nettoyage et blanchisserie', de: 'Reinigung und Wäscherei' },
    synonyms: {
      en: ['cleaning', 'cleaner', 'house cleaning', 'laundry', 'dry cleaner', 'laundrette', 'janitorial'],
      pt: ['limpeza', 'limpezas', 'lavandaria', 'lavanderia', 'engomadoria', 'empregada de limpeza'],
      es: ['limpieza', 'lavandería', 'tintorería'],
      fr: ['nettoyage', 'ménage', 'pressing', 'blanchisserie', 'laverie'],
      de: ['reinigung', 'putzdienst', 'gebäudereinigung', 'wäscherei', 'waschsalon'],
    },
  },
  {
    slug: 'auto',
    labels: { en: 'Cars and vehicles', pt: 'Automóveis', es: 'Automoción', fr: 'Automobile', de: 'Auto und Fahrzeuge' },
    synonyms: {
      en: ['car', 'garage', 'mechanic', 'car repair', 'car wash', 'tyres', 'tires', 'car rental', 'dealership', 'motorcycle'],
      pt: ['carro', 'automóvel', 'oficina', 'mecânico', 'pneus', 'lavagem auto', 'aluguer de carros', 'stand', 'mota'],
      es: ['coche', 'automóvil', 'taller', 'mecánico', 'neumáticos', 'lavado de coches', 'alquiler de coches', 'concesionario', 'moto'],
      fr: ['voiture', 'garage', 'mécanicien', 'pneus', 'lavage auto', 'location de voitures', 'concessionnaire', 'moto'],
      de: ['auto', 'autowerkstatt', 'werkstatt', 'kfz', 'reifen', 'autowäsche', 'autovermietung', 'autohaus', 'motorrad'],
    },
  },
  {
    slug: 'repair',
    labels: { en: 'Repairs', pt: 'Reparações', es: 'Reparaciones', fr: 'Réparations', de: 'Reparaturen' },
    synonyms: {
      en: ['repair', 'repairs', 'fix', 'phone repair', 'computer repair', 'shoe repair', 'watch repair', 'alterations', 'tailor'],
      pt: ['reparação', 'reparações', 'conserto', 'consertos', 'arranjos', 'sapateiro', 'relojoeiro', 'costureira'],
      es: ['reparación', 'reparaciones', 'arreglos', 'zapatero', 'relojero'],
      fr: ['réparation', 'réparations', 'dépannage', 'cordonnier', 'horloger', 'retouches'],
      de: ['reparatur', 'reparaturen', 'handyreparatur', 'schuhmacher', 'uhrmacher', 'änderungsschneiderei'],
    },
  },
  {
    slug: 'legal',
    labels: { en: 'Legal services', pt: 'Serviços jurídicos', es: 'Servicios jurídicos', fr: 'Services juridiques', de: 'Rechtsberatung' },
    synonyms: {
      en: ['lawyer', 'attorney', 'solicitor', 'law firm', 'notary', 'legal advice'],
      pt: ['advogado', 'advogada', 'advogados', 'escritório de advogados', 'notário', 'cartório', 'solicitador', 'jurídico'],
      es: ['abogado', 'abogados', 'bufete', 'notario', 'notaría', 'asesoría jurídica'],
      fr: ['avocat', 'cabinet d’avocats', 'notaire', 'juriste', 'conseil juridique'],
      de: ['anwalt', 'rechtsanwalt', 'anwaltskanzlei', 'kanzlei', 'notar', 'rechtsberatung'],
    },
    regulated: regulatedNote('Legal advice', 'admission to the bar or the notaries\' roll'),
  },
  {
    slug: 'accounting',
    labels: { en: 'Accounting and tax', pt: 'Contabilidade e impostos', es: 'Contabilidad e impuestos', fr: 'Comptabilité et fiscalité', de: 'Buchhaltung und Steuern' },
    synonyms: {
      en: ['accountant', 'accounting', 'bookkeeping', 'bookkeeper', 'tax advisor', 'tax return', 'payroll', 'auditor'],
      pt: ['contabilista', 'contador', 'contabilidade', 'impostos', 'irs', 'consultor fiscal', 'processamento salarial'],
      es: ['contable', 'contador', 'contabilidad', 'gestoría', 'asesor fiscal', 'impuestos'],
      fr: ['comptable', 'expert comptable', 'comptabilité', 'conseiller fiscal', 'impôts'],
      de: ['buchhalter', 'buchhaltung', 'steuerberater', 'steuerberatung', 'wirtschaftsprüfer', 'lohnabrechnung'],
    },
  },
  {
    slug: 'consulting',
    labels: { en: 'Consulting and business services', pt: 'Consultoria e serviços a empresas', es: 'Consultoría', fr: 'Conseil aux entreprises', de: 'Beratung' },
    synonyms: {
      en: ['consultant', 'consulting', 'consultancy', 'advisor', 'marketing agency', 'architect', 'real estate', 'translator', 'recruitment'],
      pt: ['consultor', 'consultoria', 'agência de marketing', 'arquiteto', 'imobiliária', 'tradutor', 'recrutamento'],
      es: ['consultor', 'consultoría', 'asesoría', 'agencia de marketing', 'arquitecto', 'inmobiliaria', 'traductor'],
      fr: ['consultant', 'conseil', 'agence de communication', 'architecte', 'agence immobilière', 'traducteur', 'recrutement'],
      de: ['berater', 'beratung', 'unternehmensberatung', 'werbeagentur', 'architekt', 'makler', 'übersetzer', 'personalvermittlung'],
    },
  },
  {
    slug: 'it-services',
    labels: { en: 'IT services', pt: 'Serviços de informática', es: 'Servicios informáticos', fr: 'Services informatiques', de: 'IT-Dienstleistungen' },
    synonyms: {
      en: ['it support', 'it services', 'computer services', 'web design', 'web developer', 'network', 'managed services', 'tech support'],
      pt: ['informática', 'suporte informático', 'assistência técnica', 'web design', 'desenvolvimento web', 'redes'],
      es: ['informática', 'soporte informático', 'servicio técnico', 'diseño web', 'redes'],
      fr: ['informatique', 'support informatique', 'dépannage informatique', 'création de site web', 'réseaux'],
      de: ['it service', 'it dienstleister', 'edv', 'computerservice', 'webdesign', 'netzwerk'],
    },
  },
  {
    slug: 'education',
    labels: { en: 'Education and classes', pt: 'Educação e formação', es: 'Educación y clases', fr: 'Éducation et cours', de: 'Bildung und Kurse' },
    synonyms: {
      en: ['school', 'classes', 'course', 'tutor', 'tutoring', 'lessons', 'language school', 'driving school', 'training', 'nursery'],
      pt: ['escola', 'aulas', 'curso', 'cursos', 'explicações', 'explicador', 'formação', 'escola de línguas', 'escola de condução', 'autoescola', 'creche'],
      es: ['escuela', 'academia', 'clases', 'curso', 'profesor particular', 'autoescuela', 'guardería'],
      fr: ['école', 'cours', 'formation', 'soutien scolaire', 'auto-école', 'crèche'],
      de: ['schule', 'kurs', 'kurse', 'unterricht', 'nachhilfe', 'sprachschule', 'fahrschule', 'kita'],
    },
  },
  {
    slug: 'events',
    labels: { en: 'Events and catering', pt: 'Eventos e catering', es: 'Eventos y catering', fr: 'Événements et traiteurs', de: 'Events und Catering' },
    synonyms: {
      en: ['events', 'event planner', 'wedding planner', 'catering', 'caterer', 'party', 'dj', 'tickets'],
      pt: ['eventos', 'organização de eventos', 'casamentos', 'catering', 'festas', 'animação', 'bilhetes'],
      es: ['eventos', 'organizador de eventos', 'bodas', 'catering', 'fiestas', 'entradas'],
      fr: ['événementiel', 'organisateur d’événements', 'mariage', 'traiteur', 'fête', 'billetterie'],
      de: ['veranstaltungen', 'eventplaner', 'hochzeitsplaner', 'catering', 'partyservice', 'tickets'],
    },
  },
  {
    slug: 'venues',
    labels: { en: 'Venues and entertainment', pt: 'Espaços e espetáculos', es: 'Espacios y espectáculos', fr: 'Lieux et spectacles', de: 'Veranstaltungsorte' },
    synonyms: {
      en: ['venue', 'event space', 'hall', 'theatre', 'theater', 'cinema', 'escape room', 'bowling', 'conference centre', 'coworking'],
      pt: ['espaço para eventos', 'sala', 'teatro', 'cinema', 'sala de conferências', 'quinta para eventos', 'cowork'],
      es: ['salón de eventos', 'sala', 'teatro', 'cine', 'centro de convenciones', 'coworking'],
      fr: ['salle', 'salle des fêtes', 'théâtre', 'cinéma', 'centre de congrès', 'escape game', 'coworking'],
      de: ['location', 'eventlocation', 'saal', 'theater', 'kino', 'kongresszentrum', 'coworking'],
    },
  },
  {
    slug: 'photography',
    labels: { en: 'Photography', pt: 'Fotografia', es: 'Fotografía', fr: 'Photographie', de: 'Fotografie' },
    synonyms: {
      en: ['photographer', 'photography', 'photo studio', 'wedding photographer', 'portraits', 'videographer', 'photo lab'],
      pt: ['fotógrafo', 'fotógrafa', 'fotografia', 'estúdio fotográfico', 'revelação', 'vídeo'],
      es: ['fotógrafo', 'fotografía', 'estudio fotográfico', 'revelado', 'vídeo'],
      fr: ['photographe', 'photographie', 'studio photo', 'vidéaste', 'développement photo'],
      de: ['fotograf', 'fotografin', 'fotografie', 'fotostudio', 'videograf', 'fotolabor'],
    },
  },
  {
    slug: 'stay',
    labels: { en: 'Places to stay', pt: 'Alojamento', es: 'Alojamiento', fr: 'Hébergement', de: 'Unterkünfte' },
    synonyms: {
      en: ['hotel', 'hostel', 'guest house', 'b&b', 'bed and breakfast', 'motel', 'accommodation', 'lodging', 'campsite', 'holiday rental'],
      pt: ['hotel', 'hostel', 'pousada', 'alojamento local', 'alojamento', 'hospedagem', 'residencial', 'parque de campismo', 'turismo rural'],
      es: ['hotel', 'hostal', 'albergue', 'pensión', 'alojamiento', 'casa rural', 'camping'],
      fr: ['hôtel', 'auberge', 'chambre d’hôtes', 'gîte', 'hébergement', 'camping'],
      de: ['hotel', 'pension', 'gästehaus', 'herberge', 'unterkunft', 'ferienwohnung', 'campingplatz'],
    },
  },
  {
    slug: 'tours',
    labels: { en: 'Tours and activities', pt: 'Passeios e atividades', es: 'Tours y actividades', fr: 'Visites et activités', de: 'Touren und Aktivitäten' },
    synonyms: {
      en: ['tour', 'tours', 'guided tour', 'tour guide', 'excursion', 'travel agency', 'activities', 'boat trip', 'diving', 'rentals'],
      pt: ['passeio', 'passeios', 'visita guiada', 'guia turístico', 'excursão', 'agência de viagens', 'atividades', 'mergulho'],
      es: ['tour', 'excursión', 'visita guiada', 'guía turístico', 'agencia de viajes', 'actividades', 'buceo'],
      fr: ['visite guidée', 'excursion', 'guide touristique', 'agence de voyages', 'activités', 'plongée'],
      de: ['tour', 'führung', 'stadtführung', 'ausflug', 'reisebüro', 'aktivitäten', 'tauchen'],
    },
  },
  {
    slug: 'pets',
    labels: { en: 'Pets', pt: 'Animais de estimação', es: 'Mascotas', fr: 'Animaux de compagnie', de: 'Haustiere' },
    synonyms: {
      en: ['pet', 'pets', 'vet', 'veterinarian', 'pet shop', 'dog grooming', 'kennel', 'pet sitting', 'dog walker'],
      pt: ['animais', 'veterinário', 'clínica veterinária', 'pet shop', 'tosquia', 'hotel para cães', 'cão', 'gato'],
      es: ['mascotas', 'veterinario', 'clínica veterinaria', 'tienda de animales', 'peluquería canina', 'residencia canina'],
      fr: ['animaux', 'vétérinaire', 'animalerie', 'toilettage', 'pension pour chiens'],
      de: ['haustiere', 'tierarzt', 'tierklinik', 'zoohandlung', 'hundesalon', 'tierpension'],
    },
  },
  {
    slug: 'florist',
    labels: { en: 'Florists and garden', pt: 'Floristas e jardim', es: 'Floristerías y jardín', fr: 'Fleuristes et jardinerie', de: 'Floristen und Garten' },
    synonyms: {
      en: ['florist', 'flowers', 'flower shop', 'bouquet', 'garden centre', 'garden center', 'plants', 'nursery'],
      pt: ['florista', 'flores', 'ramo de flores', 'viveiro', 'plantas', 'centro de jardinagem'],
      es: ['floristería', 'florista', 'flores', 'ramo', 'vivero', 'plantas'],
      fr: ['fleuriste', 'fleurs', 'bouquet', 'jardinerie', 'pépinière', 'plantes'],
      de: ['florist', 'blumen', 'blumenladen', 'blumenstrauß', 'gärtnerei', 'gartencenter', 'pflanzen'],
    },
  },
  {
    slug: 'crafts',
    labels: { en: 'Arts and crafts', pt: 'Artesanato', es: 'Artesanía', fr: 'Artisanat d’art', de: 'Kunsthandwerk' },
    synonyms: {
      en: ['crafts', 'handmade', 'artisan', 'pottery', 'ceramics', 'art', 'gallery', 'workshop', 'maker'],
      pt: ['artesanato', 'artesão', 'artesã', 'feito à mão', 'cerâmica', 'olaria', 'arte', 'galeria'],
      es: ['artesanía', 'artesano', 'hecho a mano', 'cerámica', 'alfarería', 'arte', 'galería'],
      fr: ['artisanat', 'artisan', 'fait main', 'céramique', 'poterie', 'art', 'galerie'],
      de: ['kunsthandwerk', 'handwerkskunst', 'handgemacht', 'töpferei', 'keramik', 'kunst', 'galerie'],
    },
  },
  {
    slug: 'software-ai',
    kind: 'software_and_ai',
    labels: { en: 'Software and AI', pt: 'Software e IA', es: 'Software e IA', fr: 'Logiciels et IA', de: 'Software und KI' },
    synonyms: {
      en: ['software', 'saas', 'ai', 'artificial intelligence', 'api', 'apis', 'ai agents', 'agents', 'llm', 'developer tools', 'cloud'],
      pt: ['software', 'saas', 'ia', 'inteligência artificial', 'api', 'agentes', 'agentes de ia', 'llm', 'ferramentas de programação', 'nuvem'],
      es: ['software', 'saas', 'ia', 'inteligencia artificial', 'api', 'agentes', 'agentes de ia', 'llm', 'nube'],
      fr: ['logiciel', 'logiciels', 'saas', 'ia', 'intelligence artificielle', 'api', 'agents', 'agents ia', 'llm', 'cloud'],
      de: ['software', 'saas', 'ki', 'künstliche intelligenz', 'api', 'agenten', 'ki agenten', 'llm', 'cloud'],
    },
  },
];

function freezeGroup(input: GroupInput): CategoryGroup {
  const synonyms = {} as Record<GroupLanguage, readonly string[]>;
  for (const lang of GROUP_LANGUAGES) synonyms[lang] = Object.freeze([...new Set(input.synonyms[lang])]);
  const group: CategoryGroup = {
    slug: input.slug,
    kind: input.kind ?? 'local_and_retail',
    labels: Object.freeze({ ...input.labels }),
    synonyms: Object.freeze(synonyms),
  };
  if (input.regulated) group.regulated = input.regulated;
  return Object.freeze(group);
}

/** The category groups, in the order GET /v1/categories lists them. */
export const CATEGORY_GROUPS: readonly CategoryGroup[] = Object.freeze(GROUP_INPUT.map(freezeGroup));

const BY_SLUG = new Map(CATEGORY_GROUPS.map((g) => [g.slug, g]));

export const GROUP_SLUGS: readonly string[] = Object.freeze(CATEGORY_GROUPS.map((g) => g.slug));

/** The group of this slug, exactly as written (use category-resolver.ts for loose matching). */
export function groupBySlug(slug: string): CategoryGroup | undefined {
  return BY_SLUG.get(slug);
}

export function isGroupSlug(slug: string): boolean {
  return BY_SLUG.has(slug);
}

/** The kind of a group slug (`local_and_retail` for an unknown one). */
export function kindOfGroup(slug: string): Kind {
  return BY_SLUG.get(slug)?.kind ?? 'local_and_retail';
}

/** Entries of GET /v1/categories: {slug, labels, kind}. */
export function categoryListEntries(): { slug: string; labels: Record<string, string>; kind: Kind }[] {
  return CATEGORY_GROUPS.map((g) => ({ slug: g.slug, labels: { ...g.labels }, kind: g.kind }));
}
