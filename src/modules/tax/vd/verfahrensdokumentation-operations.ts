import { formatDate } from '../../../shared/german-format.ts';
import { bullets, paragraph, placeholder, type Section, table } from './document-model.ts';
import type { VdContext } from './verfahrensdokumentation-facts.ts';

// Parts 4 and 5 of the Verfahrensdokumentation: the operations documentation (backups,
// updates, access, retention — mostly the operator's to fill in, beside what Kontor itself
// provides) and the internal control system (the checks the code makes, and the company's
// own controls as placeholders).

function operations({ facts, version }: VdContext): Section {
  return {
    title: 'Betriebsdokumentation',
    blocks: [],
    sections: [
      {
        title: 'Betriebsumgebung',
        blocks: [
          bullets([
            'Kontor bringt seine Laufzeitumgebung (Node.js 24) über das npm-Paket „node“ mit; native Erweiterungen werden nicht benötigt.',
            'Der Datenordner (KONTOR_DATA, Vorgabe ./data) enthält die eingebettete Datenbank (pg), den Instanzschlüssel (secret.key, sofern nicht KONTOR_SECRET_KEY gesetzt ist), die Ablage nicht versandter E-Mails (outbox) und eine Sperrdatei, die einen zweiten Prozess fernhält.',
            'Die eingebettete Datenbank schreibt ohne fsync: ein abgebrochener Prozess verliert keine abgeschlossene Änderung, ein Stromausfall kann es. Für Ausfallsicherheit gegen Stromausfall ist ein PostgreSQL-Server zu verwenden.',
          ]),
          table(
            ['Angabe', 'Eintrag'],
            [
              ['Server, Betriebssystem, Standort bzw. Hoster', placeholder('Betreiber', 'Hardware/Hosting, Betriebssystem, Rechenzentrum')],
              ['Erreichbarkeit (Adresse, TLS, Reverse Proxy)', placeholder('Betreiber', 'Adresse und TLS-Zertifikat')],
              ['Überwachung und Störungsmeldung', placeholder('Betreiber', 'wer Fehler bemerkt und wie')],
            ],
            [2, 2],
          ),
        ],
      },
      {
        title: 'Datensicherung',
        blocks: [
          paragraph(
            'Kontor erstellt selbst keine Datensicherung. Zu sichern sind die Datenbank (eingebettet: der Datenordner; Server: die PostgreSQL-Datenbank) und der Instanzschlüssel, ohne den gespeicherte Zugangsdaten nicht mehr lesbar sind. Eine Kopie des eingebetteten Datenordners ist nur bei angehaltenem Dienst sicher vollständig.',
          ),
          table(
            ['Angabe', 'Eintrag'],
            [
              ['Sicherungsverfahren und -umfang', placeholder('Betreiber', 'z. B. pg_dump, Dateisicherung des Datenordners')],
              ['Rhythmus und Aufbewahrungsdauer der Sicherungen', placeholder('Betreiber', 'täglich/wöchentlich, wie lange')],
              ['Ort der Sicherungen (getrennt vom Server)', placeholder('Betreiber', 'Ort, Verschlüsselung')],
              ['Wiederherstellungstest', placeholder('Betreiber', 'wann zuletzt, durch wen, Ergebnis')],
            ],
            [2, 2],
          ),
        ],
      },
      {
        title: 'Programmänderungen und Updates',
        blocks: [
          paragraph(
            `Eingesetzte Version: Kontor ${version}; ${facts.migrations.count} Datenbankmigrationen angewendet. Eine neue Version wendet ihre Migrationen beim Start an; die Tabelle schema_migrations hält jede mit Zeitpunkt fest. Änderungen an Kontor sind in der Versionsverwaltung des Projekts und in dessen Entscheidungsprotokoll (docs/decisions.md) beschrieben.`,
          ),
          paragraph(placeholder('Betreiber', 'wie Updates getestet, freigegeben und eingespielt werden, und wo das festgehalten wird')),
        ],
      },
      {
        title: 'Zugriff auf Server und Datenbank',
        blocks: [
          paragraph(
            'Im Normalbetrieb greifen Personen nur über die Oberfläche, die Kommandozeile mit Angabe der Person (--by) und die API zu. Direkter Zugriff auf die Datenbank oder den Datenordner umgeht die Prüfungen und das Protokoll von Kontor.',
          ),
          paragraph(
            placeholder('Betreiber', 'wer Zugang zum Server und zur Datenbank hat, wie er vergeben und entzogen wird, und wie Zugriffe protokolliert werden'),
          ),
        ],
      },
      {
        title: 'Aufbewahrung und Datenzugriff',
        blocks: [
          table(
            ['Unterlagen', 'Frist', 'Grundlage'],
            [
              [
                'Bücher, Journal, Jahresabschlüsse, Organisationsunterlagen (auch diese Verfahrensdokumentation)',
                '10 Jahre',
                '§ 147 Abs. 1 Nr. 1, Abs. 3 AO; § 257 HGB',
              ],
              [
                'Buchungsbelege, ausgestellte und erhaltene Rechnungen',
                '8 Jahre',
                '§ 147 Abs. 1 Nr. 4, Abs. 3 AO; § 14b UStG, je i. d. F. des BEG IV (seit 1.1.2025; Übergang mit dem Steuerberater prüfen)',
              ],
              ['Handels- und Geschäftsbriefe (z. B. Mahnschreiben)', '6 Jahre', '§ 147 Abs. 1 Nr. 2, 3, Abs. 3 AO'],
            ],
            [2.6, 0.8, 2.6],
          ),
          paragraph(
            'Die Frist beginnt mit dem Schluss des Kalenderjahres, in dem die Unterlage entstanden ist, und läuft nicht ab, solange die Festsetzungsfrist noch offen ist. Die Fristen sind vor der Freigabe mit dem Steuerberater abzustimmen.',
          ),
          paragraph(
            'Kontor löscht keine ausgestellten Belege, Buchungen oder Protokolleinträge. Nur technische Daten werden nach einer Frist entfernt: Webhook-Ereignisse und ihre Zustellversuche nach KONTOR_EVENT_RETENTION_DAYS (Vorgabe 90 Tage); sie sind keine Buchführungsunterlagen.',
          ),
          paragraph(
            'Datenzugriff der Finanzverwaltung (§ 147 Abs. 6 AO): Einsicht über die Oberfläche (Z1/Z2, mit einem Benutzerkonto der Rolle Mitglied), das Journal als DATEV-Buchungsstapel und die Datenträgerüberlassung (Z3): der Befehl „kontor export gobd“ bzw. die Seite Umsatzsteuer → GoBD-Export erzeugt für einen Zeitraum die Tabellen (Kunden, Partner, Rechnungen und Positionen, Gutschriften, Partnerrechnungen, Zahlungen, Bankumsätze, Journal, Mahnungen, Auszahlungen, Periodensperren, Protokoll) als CSV mit index.xml nach dem Beschreibungsstandard samt GDPdU-DTD und alle gespeicherten Belege mit ihrer SHA-256-Prüfsumme. Derselbe Datenstand ergibt dieselben Bytes; jeder Export steht im Protokoll.',
          ),
          paragraph(placeholder('Unternehmen', 'wie ein Prüfer Zugang erhält (Person, Rolle) und wer den Datenträger erstellt')),
        ],
      },
    ],
  };
}

function controls({ facts }: VdContext): Section {
  return {
    title: 'Internes Kontrollsystem',
    blocks: [
      paragraph('Kontrollen, die Kontor bei jedem Vorgang selbst ausführt:'),
      bullets([
        'Lückenlose, eindeutige Nummern, in der Transaktion des Belegs gezogen; die Übersicht in Abschnitt 3.2 vergleicht vergebene Nummern und Belege je Jahr.',
        'Pflichtangaben und umsatzsteuerliche Behandlung werden vor dem Ausstellen geprüft; Warnungen bestätigt eine Person ausdrücklich (gespeichert mit Person und Zeitpunkt).',
        'Belege sind nach dem Ausstellen unveränderlich; Korrekturen nur durch Storno mit eigener Nummer.',
        'Jede Buchung ist ausgeglichen; ein Beleg wird genau einmal gebucht; Buchungen werden nur hinzugefügt.',
        facts.lockedUntil
          ? `Festschreibung: gesperrt bis einschließlich ${formatDate(facts.lockedUntil)}; keine Buchung mit einem Datum bis dahin.`
          : 'Festschreibung: noch kein Zeitraum gesperrt – nach jedem Monatsabschluss bzw. jeder Voranmeldung sperren.',
        'Kontoauszüge: Salden müssen aufgehen, jede Datei und jeder Umsatz wird nur einmal übernommen, Zuordnungen nur über die Rechnungsnummer.',
        'Auszahlungskonten und Auszahlungsläufe nur durch Administratoren; jede Kontoänderung wird der Firma zusätzlich per E-Mail gemeldet.',
        'Protokoll aller Änderungen durch Personen und Partner, das die Datenbank nur ergänzen lässt.',
      ]),
      paragraph(
        'Lücke, die organisatorisch zu schließen ist: Befehle der Kommandozeile ohne Angabe der Person (--by) ändern Firmendaten, Sperren, API-Schlüssel und Webhooks, ohne eine Person im Protokoll festzuhalten.',
      ),
      paragraph('Kontrollen, die das Unternehmen selbst festlegt:'),
      paragraph(
        placeholder(
          'Unternehmen',
          'Vier-Augen-Prinzip bei Auszahlungen und Stammdaten, Abstimmung Bank/Debitoren/Kreditoren, Prüfung nicht zugeordneter Zahlungen, Regel zur Kommandozeile nur mit --by, Schulung und Einweisung der Personen',
        ),
      ),
    ],
  };
}

export function operationsSections(context: VdContext): Section[] {
  return [operations(context), controls(context)];
}
