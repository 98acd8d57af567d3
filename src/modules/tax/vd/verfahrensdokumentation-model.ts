import { formatDate } from '../../../shared/german-format.ts';
import { RHYTHM_DE } from '../filing.ts';
import { type Block, bullets, type DocumentModel, paragraph, placeholder, type Section, type Text, table } from './document-model.ts';
import type { VdContext, VdFacts } from './verfahrensdokumentation-facts.ts';
import { operationsSections } from './verfahrensdokumentation-operations.ts';
import { systemSections } from './verfahrensdokumentation-system.ts';

// The Verfahrensdokumentation (GoBD, BMF 28.11.2019, Rz. 151–155) as a document model:
// the four parts GoBD names (allgemeine Beschreibung, Anwenderdokumentation, technische
// Systemdokumentation, Betriebsdokumentation), the internal control system and the change
// history (docs/tax-sources.md §4). Every statement about the company comes from its data;
// every statement about the procedure is what Kontor's code does. What only the operator
// or the company knows is a visible placeholder.

const nothing = 'nicht hinterlegt';
const or = (value: string | null | undefined, fallback: Text = nothing): Text => (value ? value : fallback);

function addressLine(c: VdFacts['company']): string | null {
  const street = [c.street, c.house_number].filter(Boolean).join(' ');
  const city = [c.zip, c.city].filter(Boolean).join(' ');
  const line = [street, city, c.country_code].filter(Boolean).join(', ');
  return line || null;
}

const fiscalYearStart = (mmdd: string) => `${mmdd.slice(3, 5)}.${mmdd.slice(0, 2)}.`;

function companySection({ facts }: VdContext): Section {
  const c = facts.company;
  const register = c.register_court || c.register_number ? [c.register_court, c.register_number].filter(Boolean).join(', ') : null;
  const datev =
    c.datev_consultant_number !== null && c.datev_client_number !== null
      ? `Beraternummer ${c.datev_consultant_number}, Mandantennummer ${c.datev_client_number}`
      : placeholder(
          'Unternehmen',
          'DATEV-Berater- und Mandantennummer (noch nicht in Kontor hinterlegt; der DATEV-Export nutzt bis dahin die Testwerte 1001/1)',
        );
  return {
    title: 'Unternehmen',
    blocks: [
      table(
        ['Angabe', 'Wert in Kontor'],
        [
          ['Firma', c.legal_form && !c.name.includes(c.legal_form) ? `${c.name} (${c.legal_form})` : c.name],
          ['Anschrift', or(addressLine(c))],
          ['Umsatzsteuer-Identifikationsnummer', or(c.vat_id)],
          ['Steuernummer', or(c.tax_number)],
          ['Handelsregister', or(register, 'nicht hinterlegt (nicht eingetragen oder nicht erfasst)')],
          ['Geschäftsführung / Vorstand', or(c.managing_directors.join(', '))],
          ['Besteuerung', c.small_business ? 'Kleinunternehmer (§ 19 UStG): Rechnungen ohne Umsatzsteuer' : 'Regelbesteuerung (Umsatzsteuer wird ausgewiesen)'],
          ['Kontenrahmen', `${c.chart} (DATEV)`],
          ['Beginn des Wirtschaftsjahres', fiscalYearStart(c.fiscal_year_start)],
          ['Zeitzone (Belegdatum, Tagesgrenzen)', c.timezone],
          ['DATEV', datev],
          ['Organisation in Kontor', facts.organizationName],
        ],
        [1.3, 2],
      ),
    ],
  };
}

function scopeSection({ facts }: VdContext): Section {
  const k = facts.counts;
  const issued = (type: 'invoice' | 'storno') => facts.invoicesByYear.filter((r) => r.type === type).reduce((sum, r) => sum + r.count, 0);
  const statements = facts.statementsByYear.reduce((sum, r) => sum + r.count, 0);
  return {
    title: 'Zweck und Anwendungsbereich',
    blocks: [
      paragraph(
        `Diese Verfahrensdokumentation beschreibt, wie ${facts.company.name} mit Kontor Rechnungen schreibt, Zahlungen zuordnet, mahnt, wiederkehrende Verträge abrechnet, Provisionen an Vertriebspartner abrechnet und auszahlt und die daraus folgenden Buchungen an die Finanzbuchhaltung (DATEV) übergibt. Sie gilt nur für den Teil der Buchführung, der in Kontor abläuft.`,
      ),
      paragraph(`Stand der Daten am ${formatDate(facts.today)}:`),
      bullets([
        `${issued('invoice')} Rechnungen und ${issued('storno')} Stornorechnungen mit Rechnungsnummer`,
        `${statements} Provisionsabrechnungen und Gutschriften mit Nummer (einschließlich Stornos)`,
        `${k.customers} Kunden, ${k.partners} Vertriebspartner, ${k.contracts} Verträge`,
        `${facts.journal.entries} Buchungssätze mit ${facts.journal.lines} Buchungszeilen${facts.journal.first ? ` vom ${formatDate(facts.journal.first)} bis ${formatDate(facts.journal.last as string)}` : ''}`,
        `${k.bankStatements} eingelesene Kontoauszüge, ${k.payoutRuns} Auszahlungsläufe, ${k.dunningNotices} Mahnschreiben`,
      ]),
      paragraph('Andere Teile der Buchführung liegen außerhalb von Kontor und sind hier zu nennen:'),
      paragraph(
        placeholder(
          'Unternehmen',
          'weitere Systeme (Finanzbuchhaltung beim Steuerberater bzw. DATEV, Eingangsrechnungen, Kasse, Lohn, Belegablage/DMS, Bankzugang) und wie Daten zwischen ihnen und Kontor fließen',
        ),
      ),
    ],
  };
}

function lawSection(): Section {
  return {
    title: 'Rechtsgrundlagen',
    blocks: [
      bullets([
        '§§ 145–147 AO (Ordnungsvorschriften, Aufbewahrung, Datenzugriff), §§ 238, 239, 257 HGB',
        '§ 14, § 14b UStG (Rechnungsangaben, Aufbewahrung von Rechnungen)',
        'GoBD – BMF-Schreiben vom 28.11.2019, insbesondere Rz. 151–155 (Verfahrensdokumentation) und Rz. 100 ff. (internes Kontrollsystem); spätere Änderungen der GoBD sind bei der Prüfung dieses Entwurfs zu berücksichtigen',
      ]),
    ],
  };
}

function peopleSection({ facts }: VdContext): Section {
  const role = (r: 'admin' | 'member') => (r === 'admin' ? 'Administrator' : 'Mitglied');
  const people: Block =
    facts.members.length > 0
      ? table(
          ['Person (Anmeldung)', 'Rolle in Kontor', 'Status'],
          facts.members.map((m) => [m.email, role(m.role), m.active ? 'aktiv' : 'deaktiviert']),
          [2.2, 1.2, 1],
        )
      : paragraph('Keine Person hat Zugang zu dieser Firma.');
  return {
    title: 'Zuständigkeiten und Berechtigungen',
    blocks: [
      paragraph(
        'Personen melden sich mit E-Mail-Adresse und Passwort an der Oberfläche (/app) an. Administratoren verwalten Personen, Rollen, API-Schlüssel, Webhooks, Firmeneinstellungen und Auszahlungskonten und führen Auszahlungsläufe aus; Mitglieder erledigen die tägliche Arbeit (Entwürfe, Ausstellen, Zuordnen, Mahnen). Zugang zu dieser Firma haben:',
      ),
      people,
      table(
        ['Aufgabe', 'Verantwortlich'],
        [
          ['Geschäftsleitung (Gesamtverantwortung)', placeholder('Unternehmen', 'Name, Funktion')],
          ['Verantwortlich für diese Verfahrensdokumentation', placeholder('Unternehmen', 'Name, Funktion')],
          ['Steuerberater', placeholder('Unternehmen', 'Kanzlei, Ansprechpartner')],
          ['Betrieb von Kontor (Server, Sicherung, Updates)', placeholder('Betreiber', 'Name oder Dienstleister')],
          ['Freigabe von Auszahlungen und Stammdatenänderungen', placeholder('Unternehmen', 'Name, Vertretung')],
        ],
        [2, 2],
      ),
    ],
  };
}

function userSections({ facts }: VdContext): Section[] {
  const c = facts.company;
  return [
    {
      title: 'Stammdaten',
      blocks: [
        bullets([
          'Kunden und Produkte kommen über die API aus dem eigenen Produkt des Unternehmens (Abgleich über eine externe Referenz). Jeder Kunde erhält eine fortlaufende Kundennummer (10000–69999), die zugleich sein Debitorenkonto ist.',
          'Vertriebspartner erhalten eine Kreditorennummer (70000–79999). Auszahlungskonto, Ansprechpartner und Telefonnummer eines Partners setzen Personen in Kontor; jede Änderung des Auszahlungskontos steht im Protokoll und wird der Firma per E-Mail gemeldet.',
          `Firmendaten (Anschrift, Steuernummern, Bankverbindung, Registerangaben, Nummernmuster, Zahlungsziel ${c.payment_terms_days} Tage) ändern Administratoren in der Oberfläche oder auf der Kommandozeile; im Protokoll steht eine Änderung, wenn sie in der Oberfläche oder auf der Kommandozeile mit Angabe der Person (--by) erfolgt.`,
        ]),
      ],
    },
    {
      title: 'Rechnungen und Stornorechnungen',
      blocks: [
        bullets([
          'Rechnungen entstehen über die API, als Entwurf in der Oberfläche oder im Abrechnungslauf wiederkehrender Verträge. Vor dem Ausstellen prüft Kontor die Pflichtangaben (Anschrift, Steuernummer oder USt-IdNr., Bankverbindung, Kundendaten) und ermittelt die umsatzsteuerliche Behandlung (Inland, Kleinunternehmer, Reverse Charge, nicht steuerbar); Warnungen muss eine Person ausdrücklich bestätigen, die Bestätigung wird an der Rechnung und im Protokoll gespeichert.',
          'Beim Ausstellen werden Rechnungsnummer, Beleg (PDF und E-Rechnung), Buchung und Ereignis in einer Datenbanktransaktion geschrieben: entweder alles oder nichts.',
          'E-Rechnungen: Kunden mit Leitweg-ID erhalten eine XRechnung 3.0 (CII), andere Geschäftskunden eine ZUGFeRD-/Factur-X-Rechnung (EN 16931, PDF/A-3b), Privatkunden eine PDF-Rechnung.',
          'Eine ausgestellte Rechnung wird nicht mehr geändert. Korrekturen erfolgen ausschließlich durch eine Stornorechnung mit eigener Nummer aus demselben Nummernkreis; danach kann eine neue Rechnung ausgestellt werden.',
          c.small_business
            ? 'Als Kleinunternehmer (§ 19 UStG) weisen die Rechnungen keine Umsatzsteuer aus und tragen den Hinweis auf die Steuerbefreiung.'
            : 'Die Umsatzsteuer wird je Steuersatz auf die Summe der Nettobeträge berechnet; Beträge werden als ganze Cent gespeichert und kaufmännisch gerundet.',
        ]),
      ],
    },
    {
      title: 'Zahlungen, Mahnwesen und Verträge',
      blocks: [
        bullets([
          'Kontoauszüge (camt.052/.053/.054, MT940, MT942, auch als ZIP-Archiv) werden eingelesen; jede Datei und jeder Umsatz wird nur einmal übernommen. Zahlungseingänge werden über die Rechnungsnummer im Verwendungszweck zugeordnet und gebucht (Bank an Debitor); nicht zuordenbare Umsätze ordnet eine Person zu.',
          `Mahnwesen: ${c.dunning_enabled ? 'eingeschaltet' : 'ausgeschaltet'}. Zahlungserinnerungen und Mahnungen werden als PDF erzeugt, gespeichert und per E-Mail versandt; Verzugszinsen nach § 288 BGB mit dem Basiszinssatz nach § 247 BGB.`,
          'Wiederkehrende Verträge werden im täglichen Abrechnungslauf zu Rechnungen; ein fehlgeschlagener Lauf wird mit Grund festgehalten und wiederholt.',
        ]),
      ],
    },
    {
      title: 'Provisionen, Gutschriften und Auszahlungen',
      blocks: [
        bullets([
          'Umsätze, die einem Vertriebspartner zugeordnet sind, ergeben Provisionsansprüche. Der Abrechnungslauf erstellt je Partner eine Gutschrift (Gutschriftsverfahren mit Vereinbarung, Nummer GS-…), eine Bitte um Rechnungsstellung oder eine Provisionsabrechnung an Privatpersonen (Nummer AB-…).',
          'Die Rechnung eines Partners zu einer Bitte um Rechnungsstellung wird von einer Person erfasst oder vom Partner im Partnerportal als E-Rechnung hochgeladen, gegen die Abrechnung geprüft und unverändert gespeichert.',
          'Auszahlungen führt ein Administrator als Auszahlungslauf aus: Kontor erzeugt eine SEPA-Überweisungsdatei (pain.001.001.09), bewahrt sie auf und bucht die Auszahlung auf Geldtransit. Die Datei wird beim Kreditinstitut hochgeladen.',
        ]),
      ],
    },
    {
      title: 'Periodenabschluss und Auswertungen',
      blocks: [
        bullets([
          'Buchungszeitraum sperren (Festschreibung): nach Abschluss eines Monats bzw. einer Voranmeldung sperrt ein Administrator den Zeitraum bis zu einem Datum. Danach wird nichts mehr mit einem Datum bis dahin gebucht; Korrekturen gehen in den offenen Zeitraum.',
          'DATEV-Export: das Journal eines Wirtschaftsjahres als DATEV-Buchungsstapel für den Steuerberater; jeder Export steht im Protokoll.',
          c.small_business
            ? 'Umsatzsteuer-Voranmeldung: als Kleinunternehmer gibt die Firma keine ab; Kontor zeigt dazu den Grund.'
            : `Umsatzsteuer-Voranmeldung: ${RHYTHM_DE[c.vat_return_period]}${c.vat_return_extension ? ', mit Dauerfristverlängerung' : ''} (Einstellung der Firma). Kontor zeigt die Kennzahlen eines Monats, Quartals oder Jahres aus dem Journal, jede mit den Belegen dahinter, und die Abgabefrist. Die Übermittlung an ELSTER erfolgt außerhalb von Kontor.`,
        ]),
        paragraph(
          placeholder(
            'Unternehmen',
            'Ablauf und Termine des Monatsabschlusses: wer sperrt wann, wer exportiert an den Steuerberater, wer übermittelt die Voranmeldung',
          ),
        ),
      ],
    },
  ];
}

export function verfahrensdokumentationModel(context: VdContext): DocumentModel {
  const { facts, version } = context;
  const stand = formatDate(facts.today);
  return {
    title: 'Verfahrensdokumentation',
    subtitle: 'nach den GoBD (BMF-Schreiben vom 28.11.2019, Rz. 151–155) – Entwurf',
    titleLines: [facts.company.name, `Stand: ${stand}`, `Erzeugt von Kontor ${version}`],
    footer: `Verfahrensdokumentation ${facts.company.name} · Stand ${stand}`,
    preface: [
      paragraph(
        `Dieser Entwurf wurde am ${stand} von Kontor ${version} aus den Daten erzeugt, die Kontor über die Firma hält, und aus dem, was Kontor bei jedem Vorgang tut. Er ersetzt keine Prüfung: Das Unternehmen vervollständigt ihn, stimmt ihn mit dem Steuerberater ab und gibt ihn frei. Stellen, die nur das Unternehmen oder der Betreiber von Kontor kennen, sind so markiert:`,
      ),
      paragraph(placeholder('Betreiber', 'so gekennzeichnete Angaben')),
      paragraph('Jede Änderung des Verfahrens ist in der Änderungshistorie (Abschnitt 6) festzuhalten; frühere Fassungen sind aufzubewahren.'),
    ],
    sections: [
      { title: 'Allgemeine Beschreibung', blocks: [], sections: [companySection(context), scopeSection(context), lawSection(), peopleSection(context)] },
      {
        title: 'Anwenderdokumentation',
        blocks: [paragraph('Die Abläufe, wie Personen und das angebundene Produkt des Unternehmens mit Kontor arbeiten.')],
        sections: userSections(context),
      },
      ...systemSections(context),
      ...operationsSections(context),
      {
        title: 'Änderungshistorie',
        blocks: [
          table(
            ['Version', 'Datum', 'Änderung', 'Bearbeitet von'],
            [
              ['1', stand, `Entwurf erzeugt von Kontor ${version} am ${stand}`, 'Kontor'],
              ['2', '', placeholder('Unternehmen', 'Prüfung und Freigabe des Entwurfs: Datum, Änderungen, Name'), ''],
            ],
            [0.7, 1.1, 3, 1.4],
          ),
          paragraph(placeholder('Unternehmen', 'Freigabe durch die Geschäftsleitung: Ort, Datum, Unterschrift')),
        ],
      },
    ],
  };
}
