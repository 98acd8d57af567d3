import { formatDate } from '../../../shared/german-format.ts';
import { accountPlan } from '../../bookkeeping/index.ts';
import { type Block, bullets, paragraph, placeholder, type Section, type Text, table } from './document-model.ts';
import type { VdContext } from './verfahrensdokumentation-facts.ts';
import { numberRangeBlocks } from './verfahrensdokumentation-numbers.ts';

// Parts 3–5 of the Verfahrensdokumentation: the technical system documentation (what the
// code guarantees, with this company's figures), the operations documentation (mostly the
// operator's to fill in, with what Kontor itself provides) and the internal control system.

const JOURNAL_TYPES: Record<string, string> = {
  invoice: 'Rechnungen',
  storno: 'Stornorechnungen',
  payment: 'Zahlungen und Rückbuchungen',
  commission_statement: 'Provisionsabrechnungen, Partnerrechnungen, Auszahlungen',
};

function overviewSection({ facts, version }: VdContext): Section {
  return {
    title: 'Systemüberblick',
    blocks: [
      bullets([
        `Programm: Kontor ${version}, eine Node.js-Anwendung (Node.js 24). Ein Prozess stellt die API (/v1), die Oberfläche (/app) und das Partnerportal (/portal) bereit und führt die Hintergrundaufträge (Versand, Abrechnungsläufe, Mahnläufe) aus.`,
        'Datenbank: PostgreSQL – entweder eingebettet (PGlite, im Datenordner des Dienstes) oder ein PostgreSQL-Server (Umgebungsvariable DATABASE_URL). Alle Daten der Firma, auch die Belegdateien, liegen in dieser Datenbank.',
        `Datenbankschema: ${facts.migrations.count} Migrationen angewendet${facts.migrations.latest ? `, zuletzt ${facts.migrations.latest}` : ''}. Migrationen werden beim Start in fester Reihenfolge angewendet und in der Tabelle schema_migrations mit Zeitpunkt festgehalten.`,
        'Jede Änderung läuft in einer Datenbanktransaktion zusammen mit den Aufträgen und Ereignissen, die sie auslöst; E-Mails und Webhooks gehen erst nach dem Abschluss hinaus.',
      ]),
      table(['Angabe', 'Wert'], [['Betriebsart der Datenbank (eingebettet oder Server)', placeholder('Betreiber', 'Betriebsart, Server/Standort')]], [2, 2]),
    ],
  };
}

function documentsSection({ facts }: VdContext): Section {
  const k = facts.counts;
  return {
    title: 'Belege und ihre Unveränderbarkeit',
    blocks: [
      paragraph(
        'Beim Ausstellen hält Kontor den Inhalt eines Belegs als festen Datenstand fest, erzeugt daraus einmal PDF und E-Rechnung und speichert die Dateien mit ihrer SHA-256-Prüfsumme in der Datenbank. Ausgestellte Belege und ihre Dateien werden nicht geändert, nicht neu erzeugt und nicht gelöscht; eine Korrektur ist ein neuer Beleg (Stornorechnung, Storno einer Abrechnung).',
      ),
      table(
        ['Beleg', 'Ablage in Kontor', 'Anzahl'],
        [
          ['Rechnungen und Stornorechnungen (PDF; bei ZUGFeRD mit eingebetteter E-Rechnung)', 'invoice_files (pdf)', String(k.invoiceFiles.pdf)],
          ['E-Rechnungen als XML (XRechnung bzw. das ZUGFeRD-XML)', 'invoice_files (xml)', String(k.invoiceFiles.xml)],
          ['Gutschriften und Provisionsabrechnungen (PDF, XML)', 'commission_statement_files', String(k.statementFiles)],
          ['Rechnungen von Partnern, im Portal hochgeladen und angenommen (im Eingangsformat)', 'partner_invoice_uploads', String(k.partnerUploadsAccepted)],
          ['Mahnschreiben', 'dunning_notices', String(k.dunningNotices)],
          ['SEPA-Überweisungsdateien der Auszahlungsläufe', 'payout_runs', String(k.payoutRuns)],
          ['Kontoauszüge: Prüfsumme, Dateiname und jeder Umsatz (nicht die Datei selbst)', 'bank_statements, bank_entries', String(k.bankStatements)],
        ],
        [3, 1.6, 0.7],
      ),
      paragraph(
        placeholder(
          'Unternehmen',
          'wo die Original-Kontoauszüge, Eingangsrechnungen außerhalb des Partnerportals und Verträge mit Partnern (Gutschriftsvereinbarungen) aufbewahrt werden',
        ),
      ),
    ],
  };
}

function journalSection({ facts }: VdContext): Section {
  const plan = accountPlan(facts.company.chart);
  const accounts: [string, string][] = [
    [plan.bank, 'Bank'],
    ['10000–69999', 'Debitoren (Kundennummer)'],
    ['70000–79999', 'Kreditoren (Partner)'],
    [plan.revenue19, 'Erlöse 19 % USt'],
    [plan.revenue7, 'Erlöse 7 % USt'],
    [plan.revenueTaxExempt, 'steuerfreie Umsätze (§ 4 Nr. 8 ff. UStG)'],
    [plan.revenueSmallBusiness, 'Erlöse Kleinunternehmer (§ 19 UStG)'],
    [plan.revenueReverseCharge, 'sonstige Leistungen EU, Steuerschuld beim Empfänger'],
    [plan.revenueNotTaxable, 'nicht steuerbare Umsätze (Drittland)'],
    [plan.outputVat19, 'Umsatzsteuer 19 %'],
    [plan.outputVat7, 'Umsatzsteuer 7 %'],
    [plan.commissionExpense, 'Provisionen (Vorsteuer 19 % über BU-Schlüssel 9)'],
    [plan.inputVat19, 'Vorsteuer 19 %'],
  ];
  const byType = facts.journal.byType.map((t) => `${JOURNAL_TYPES[t.type] ?? t.type}: ${t.count}`);
  return {
    title: 'Journal und Buchungen',
    blocks: [
      paragraph(
        `Jeder Beleg wird im selben Vorgang gebucht (Tabellen journal_entries und journal_lines, Kontenrahmen ${facts.company.chart}); ein Beleg wird genau einmal gebucht. Buchungen werden nur hinzugefügt: Kontor ändert und löscht keine Buchung. Ein Storno bucht die Gegenbuchung (Soll und Haben getauscht) mit eigenem Datum im offenen Zeitraum und verweist auf den Beleg, den es ausgleicht (DATEV Belegfeld 1). Jede Buchung muss ausgeglichen sein (Soll = Haben), Beträge sind ganze Cent.`,
      ),
      paragraph(
        'Hinweis: Die Unveränderbarkeit der Buchungen sichert der Programmcode; anders als beim Protokoll verhindert die Datenbank eine Änderung nicht selbst. Direkter Schreibzugriff auf die Datenbank ist daher organisatorisch auszuschließen (Abschnitt 4).',
      ),
      bullets(byType.length > 0 ? byType : ['Noch keine Buchungen.']),
      table(
        ['Konto', 'Verwendung'],
        accounts.map(([account, use]) => [account, use]),
        [1, 3],
      ),
      paragraph(
        'DATEV-Export: EXTF-Buchungsstapel (Formatversion 700, Kategorie 21) in Windows-1252 mit CRLF, je Wirtschaftsjahr. Umsatzsteuer auf Automatikkonten wird zusammengefasst, weil DATEV sie aus dem Bruttobetrag ableitet. Liegt der exportierte Zeitraum ganz in einem gesperrten Zeitraum, wird der Stapel als festgeschrieben gekennzeichnet.',
      ),
    ],
  };
}

function lockSection({ facts }: VdContext): Section {
  const blocks: Block[] = [
    paragraph(
      facts.lockedUntil
        ? `Der Buchungszeitraum ist gesperrt bis einschließlich ${formatDate(facts.lockedUntil)}.`
        : 'Es ist noch kein Buchungszeitraum gesperrt.',
    ),
    paragraph(
      'Eine Sperre (Festschreibung) verbietet jede Buchung mit einem Datum bis einschließlich des Sperrdatums: kein Ausstellen, kein Storno, keine Zahlung, keine Abrechnung und keine Auszahlung mit einem solchen Datum; ein Kontoauszug mit einem solchen Buchungstag wird ganz abgewiesen. Eine Sperre kann nur nach vorn verschoben werden, nie zurück und nie über den heutigen Tag hinaus. Jede Sperre steht in der Tabelle period_lock_history.',
    ),
  ];
  if (facts.lockHistory.length > 0)
    blocks.push(
      table(
        ['Gesperrt bis', 'Gesetzt am', 'Gesetzt von'],
        facts.lockHistory.map((h) => [formatDate(h.locked_until), formatDate(h.locked_on), h.by ?? 'Kommandozeile (ohne Person)']),
        [1, 1, 2],
      ),
    );
  return { title: 'Festschreibung (Sperre von Buchungszeiträumen)', blocks };
}

function auditSection({ facts }: VdContext): Section {
  const a = facts.audit;
  const blocks: Block[] = [
    paragraph(
      'Das Protokoll (Tabelle audit_log) hält jede Änderung fest, die eine Person in der Oberfläche, auf der Kommandozeile mit Angabe der Person oder ein Partner im Portal vornimmt: wer, wann, was, an welchem Objekt, die Werte vorher und nachher. Es wird in derselben Transaktion wie die Änderung geschrieben. Die Datenbank lässt nur das Hinzufügen zu: ein Trigger weist jedes UPDATE, DELETE und TRUNCATE ab. Passwörter stehen nie im Protokoll, IBANs nur gekürzt.',
    ),
    paragraph(
      `Einträge zu dieser Firma: ${a.rows}${a.first ? ` (seit ${formatDate(a.first)})` : ''}; dazu ${a.organizationRows} organisationsweite Einträge (z. B. Passwortänderungen). DATEV-Exporte im Protokoll: ${facts.datevExports.count}${facts.datevExports.last ? `, zuletzt am ${formatDate(facts.datevExports.last)}` : ''}.`,
    ),
  ];
  if (a.byAction.length > 0)
    blocks.push(
      table(
        ['Vorgang (Kennung)', 'Anzahl'],
        a.byAction.map((r) => [r.action, String(r.count)]),
        [3, 1],
      ),
    );
  return { title: 'Protokoll (Audit-Trail)', blocks };
}

function interfacesSection({ facts }: VdContext): Section {
  const k = facts.counts;
  const c = facts.company;
  const imported = facts.bankFormats.length > 0 ? `eingelesen: ${facts.bankFormats.join(', ')} (${k.bankStatements} Dateien)` : 'noch keine Datei eingelesen';
  const rows: Text[][] = [
    ['HTTP-API /v1', 'JSON über HTTPS, API-Schlüssel mit Berechtigungen', `${facts.apiKeys.length} gültige API-Schlüssel`],
    ['Kontoauszüge (Import)', 'camt.052/.053/.054 (.001.02–.13), MT940, MT942, ZIP', imported],
    ['Auszahlungen (Export)', 'SEPA pain.001.001.09', `${k.payoutRuns} Auszahlungsläufe`],
    ['Finanzbuchhaltung (Export)', 'DATEV EXTF-Buchungsstapel', `${facts.datevExports.count} Exporte im Protokoll`],
    ['E-Rechnungen (Ausgang)', 'XRechnung 3.0 (CII), ZUGFeRD/Factur-X (EN 16931)', `${k.invoiceFiles.xml} E-Rechnungen gespeichert`],
    ['Partnerrechnungen (Eingang)', 'XRechnung (CII, UBL), ZUGFeRD/Factur-X, PDF', `${k.partnerUploadsAccepted} angenommen`],
    [
      'E-Mail-Versand',
      'SMTP des Unternehmens; ohne Einstellung: Ablage im Datenordner (outbox)',
      c.smtp_host ? `SMTP-Server ${c.smtp_host}` : 'kein SMTP hinterlegt: E-Mails werden nur abgelegt, nicht versandt',
    ],
    ['Webhooks', 'HTTPS, signiert nach Standard Webhooks', `${k.webhookEndpoints} Empfänger`],
    [
      'Partnerportal /portal',
      'Anmeldung der Partner mit eigenem Konto',
      `${facts.partnerAccounts.total} Partnerkonten, davon ${facts.partnerAccounts.active} aktiv`,
    ],
  ];
  return {
    title: 'Schnittstellen',
    blocks: [
      table(['Schnittstelle', 'Format', 'Bei dieser Firma'], rows, [1.6, 2.4, 2]),
      paragraph(placeholder('Unternehmen', 'welches eigene System die API nutzt (CRM, Shop, Produkt) und wer es verantwortet')),
    ],
  };
}

function accessSection({ facts }: VdContext): Section {
  const keys: Block =
    facts.apiKeys.length > 0
      ? table(
          ['Nr.', 'Berechtigungen', 'Gilt für', 'Angelegt', 'Gültig bis', 'Angelegt von'],
          facts.apiKeys.map((key, i) => [
            String(i + 1),
            key.scopes.join(', '),
            key.all_companies ? 'alle Firmen der Organisation' : 'diese Firma',
            formatDate(key.created_on),
            key.expires_on ? formatDate(key.expires_on) : 'unbefristet',
            key.creator,
          ]),
          [0.4, 2.6, 1.2, 1, 1, 2],
        )
      : paragraph('Es gibt keinen gültigen API-Schlüssel für diese Firma.');
  return {
    title: 'Zugriffsschutz und Datensicherheit',
    blocks: [
      bullets([
        'Passwörter werden nur als scrypt-Hash gespeichert; fehlgeschlagene Anmeldungen werden gezählt und gebremst. Sitzungen laufen ab und können beendet werden.',
        'API-Schlüssel werden nur einmal beim Anlegen angezeigt; gespeichert sind ihr SHA-256-Hash, Berechtigungen, Ablaufdatum und Widerruf. Nur aktive Administratoren legen Schlüssel an.',
        'Gespeicherte Zugangsdaten (SMTP-Passwort, Webhook-Geheimnisse) sind mit AES-256-GCM unter dem Instanzschlüssel versiegelt.',
        `Partner sehen im Portal nur ihre eigenen Daten (${facts.partnerAccounts.total} Partnerkonten).`,
      ]),
      paragraph('Gültige API-Schlüssel für diese Firma (ohne Schlüsselwerte):'),
      keys,
    ],
  };
}

export function systemSections(context: VdContext): Section[] {
  return [
    {
      title: 'Technische Systemdokumentation',
      blocks: [],
      sections: [
        overviewSection(context),
        {
          title: 'Nummernkreise',
          blocks: [
            paragraph(
              'Jede Nummer wird in derselben Datenbanktransaktion gezogen, die den Beleg schreibt: Der Zähler des Nummernkreises bleibt bis zum Ende der Transaktion gesperrt, und scheitert der Vorgang, wird auch die Nummer zurückgegeben. So entstehen keine Lücken und keine doppelten Nummern. Rechnungen und Stornorechnungen teilen sich einen Nummernkreis je Kalenderjahr; Entwürfe haben keine Nummer.',
            ),
            ...numberRangeBlocks(context.facts),
          ],
        },
        documentsSection(context),
        journalSection(context),
        lockSection(context),
        auditSection(context),
        interfacesSection(context),
        accessSection(context),
      ],
    },
  ];
}
