// What German company law wants on every business letter, and so on every invoice, by
// legal form (german-rules §1.1): register court and number for registered traders and
// companies (§ 37a, § 125a, § 177a HGB; § 35a GmbHG; § 80 AktG; § 25a GenG; § 7 Abs. 5
// PartGG), and every managing director (GmbH, UG, GmbH & Co. KG) or member of the board
// (AG, SE, eG). Forms Kontor does not recognise carry no rule: their details print when given.

export type RegisterKind = 'HRA' | 'HRB' | 'GnR' | 'PR' | 'VR';

export type LegalFormRule = {
  /** How the form is named in messages ("GmbH", "e.K."). */
  form: string;
  register: RegisterKind;
  /** Who must be named, and the label they print under; null when nobody must be named. */
  directors: 'Geschäftsführer' | 'Vorstand' | null;
};

/** Normalised legal form (lower case, without spaces, dots and hyphens) → rule. */
const RULES: [RegExp, LegalFormRule][] = [
  [
    /^(gmbh|ggmbh|ug|ug\(haftungsbeschränkt\)|unternehmergesellschaft\(haftungsbeschränkt\))$/,
    { form: 'GmbH/UG', register: 'HRB', directors: 'Geschäftsführer' },
  ],
  [/^(gmbh|ug|ug\(haftungsbeschränkt\)|ag|se)&co(\.)?kg$/, { form: 'GmbH & Co. KG', register: 'HRA', directors: 'Geschäftsführer' }],
  [/^(ag|se|aktiengesellschaft)$/, { form: 'AG/SE', register: 'HRB', directors: 'Vorstand' }],
  [/^(kgaa)$/, { form: 'KGaA', register: 'HRB', directors: null }],
  [/^(kg|ohg|ek|ekfm|ekfr|eingetragenerkaufmann|eingetragenekauffrau)$/, { form: 'KG/OHG/e.K.', register: 'HRA', directors: null }],
  [/^(eg)$/, { form: 'eG', register: 'GnR', directors: 'Vorstand' }],
  [/^(partg|partgmbb)$/, { form: 'PartG', register: 'PR', directors: null }],
  [/^(ev)$/, { form: 'e.V.', register: 'VR', directors: null }],
];

function normaliseForm(legalForm: string): string {
  return legalForm.toLowerCase().replace(/[\s.\-–]/g, '');
}

/** The rule of a legal form, or null for forms without one (Einzelunternehmen, GbR, freelancers, unknown). */
export function legalFormRule(legalForm: string | null | undefined): LegalFormRule | null {
  if (!legalForm?.trim()) return null;
  const normalised = normaliseForm(legalForm);
  // The display name keeps the person's spelling: "e.K." is named as "e.K.", not as the group.
  const found = RULES.find(([pattern]) => pattern.test(normalised));
  return found ? { ...found[1], form: legalForm.trim() } : null;
}

const REGISTER_NUMBER = /^(HRA|HRB|GnR|PR|VR)\s?(\d{1,7})(\s?[A-Z]{1,3})?$/i;

/** "hrb12345 b" → "HRB 12345 B"; null when it is not a German register number. */
export function normaliseRegisterNumber(value: string): string | null {
  const match = REGISTER_NUMBER.exec(value.trim().replace(/\s+/g, ' '));
  if (!match) return null;
  const kind = match[1]!.toUpperCase() === 'GNR' ? 'GnR' : match[1]!.toUpperCase();
  return `${kind} ${match[2]}${match[3] ? ` ${match[3].trim().toUpperCase()}` : ''}`;
}

export type CompanyLawDetails = {
  legal_form: string | null;
  register_court: string | null;
  register_number: string | null;
  managing_directors: readonly string[];
};

/** A problem with the company-law details: the key it concerns and English and German sentences. */
export type CompanyLawProblem = { key: 'register_court' | 'register_number' | 'managing_directors'; en: string; de: string };

/** What the details lack or get wrong for their legal form; empty when they are complete. */
export function companyLawProblems(details: CompanyLawDetails): CompanyLawProblem[] {
  const problems: CompanyLawProblem[] = [];
  const registered = normaliseRegisterNumber(details.register_number ?? '');
  if (details.register_number && !registered)
    problems.push({
      key: 'register_number',
      en: 'not a German register number such as "HRB 12345" (HRA, HRB, GnR, PR or VR, then the number)',
      de: 'Die Registernummer hat nicht die Form „HRB 12345“.',
    });
  const rule = legalFormRule(details.legal_form);
  if (!rule && Boolean(details.register_court) !== Boolean(details.register_number))
    problems.push({
      key: details.register_court ? 'register_number' : 'register_court',
      en: 'register court and register number go together: give both or neither',
      de: 'Registergericht und Registernummer gehören zusammen.',
    });
  if (!rule) return problems;
  if (!details.register_court || !details.register_number)
    problems.push({
      key: details.register_court ? 'register_number' : 'register_court',
      en: `missing: the legal form ${rule.form} must name its register court and register number on its invoices (${rule.register} …)`,
      de: `Für die Rechtsform ${rule.form} fehlen Registergericht und Registernummer (Pflichtangabe auf Geschäftsbriefen).`,
    });
  else if (registered && !registered.startsWith(`${rule.register} `))
    problems.push({
      key: 'register_number',
      en: `the legal form ${rule.form} is entered in the ${rule.register} register, not in ${registered.split(' ')[0]}`,
      de: `Eine ${rule.form} steht im Register ${rule.register}, nicht ${registered.split(' ')[0]}.`,
    });
  if (rule.directors && details.managing_directors.length === 0)
    problems.push({
      key: 'managing_directors',
      en: `missing: the legal form ${rule.form} must name every ${rule.directors === 'Vorstand' ? 'member of its board (Vorstand)' : 'managing director (Geschäftsführer)'} on its invoices`,
      de: `Für die Rechtsform ${rule.form} fehlen die Namen ${rule.directors === 'Vorstand' ? 'der Vorstandsmitglieder' : 'der Geschäftsführer'} (Pflichtangabe auf Geschäftsbriefen).`,
    });
  return problems;
}

/** The label the directors print under: the form's own, else "Geschäftsführung". */
export function directorsLabel(legalForm: string | null | undefined): string {
  return legalFormRule(legalForm)?.directors ?? 'Geschäftsführung';
}
