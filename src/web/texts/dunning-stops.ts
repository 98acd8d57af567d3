// Texts of the Mahnsperre, "Erinnerung jetzt senden" and the Basiszinssatz warning (issue 25;
// pages/dunning.ts, and the boxes it gives the invoice, customer and dashboard pages).

import type { DunningActionRefusal } from '../../modules/dunning/index.ts';
import { formatDate } from '../../shared/german-format.ts';

type Refusals = { [C in DunningActionRefusal]: (values: Record<string, string>) => string };

export const de = {
  boxHeading: 'Mahnwesen',
  stopBadge: 'Mahnsperre',
  boxStopSet: 'Die Mahnsperre ist gesetzt. Noch nicht versendete Mahnungen wurden abgebrochen.',
  boxStopExisted: 'Es galt bereits eine Mahnsperre; sie bleibt, wie sie ist.',
  boxStopLifted: 'Die Mahnsperre ist aufgehoben. Der nächste tägliche Mahnlauf mahnt wieder nach den üblichen Regeln.',
  boxReminded: 'Das Schreiben ist erstellt und wird in wenigen Minuten per E-Mail versendet.',
  stopsHeading: 'Mahnsperren',
  stopsHint:
    'Solange eine Mahnsperre gilt, erstellt Kontor für die Rechnung (oder alle Rechnungen des Kunden) keine Zahlungserinnerung und keine Mahnung; überfällig wird die Rechnung trotzdem. Eine Mahnsperre setzen Sie auf der Seite der Rechnung oder des Kunden.',
  noStops: 'Keine Mahnsperren.',
  subject: 'Für',
  reason: 'Grund',
  since: 'Gesetzt',
  action: 'Aktion',
  allInvoicesOf: (customer: string) => `alle Rechnungen von ${customer}`,
  invoiceOf: (number: string, customer: string) => `Rechnung ${number} (${customer})`,
  setBy: (date: string, email: string) => `${date} von ${email}`,
  stopActive: (date: string, email: string) => `Mahnsperre seit ${date} (gesetzt von ${email})`,
  stopActiveCustomer: (customer: string, date: string, email: string) => `Mahnsperre für alle Rechnungen von ${customer} seit ${date} (gesetzt von ${email})`,
  stopReasonLabel: 'Grund der Mahnsperre',
  stopReasonHint: 'Pflichtangabe, etwa „Kunde bestreitet die Leistung“ oder „Ratenzahlung vereinbart“. Höchstens 500 Zeichen.',
  setInvoiceStop: 'Mahnsperre für diese Rechnung setzen',
  setCustomerStop: 'Mahnsperre für alle Rechnungen des Kunden setzen',
  lift: 'Mahnsperre aufheben',
  liftOf: (label: string) => `Mahnsperre für ${label} aufheben`,
  stopSet: (label: string, cancelled: number) =>
    `Die Mahnsperre für ${label} ist gesetzt. ${cancelled === 0 ? '' : cancelled === 1 ? 'Eine noch nicht versendete Mahnung wurde abgebrochen.' : `${cancelled} noch nicht versendete Mahnungen wurden abgebrochen.`}`.trim(),
  stopExisted: (label: string) => `Für ${label} gilt bereits eine Mahnsperre.`,
  stopLifted: (label: string) => `Die Mahnsperre für ${label} ist aufgehoben. Der nächste tägliche Mahnlauf mahnt wieder nach den üblichen Regeln.`,
  stopLiftedBefore: (label: string) => `Die Mahnsperre für ${label} war bereits aufgehoben.`,
  remindNow: (title: string) => `${title} jetzt senden`,
  remindHint: (title: string) =>
    `Die Rechnung ist überfällig. Statt auf den täglichen Mahnlauf zu warten, erstellt Kontor die ${title} sofort (mit denselben Regeln für Gebühren und Zinsen) und verschickt sie per E-Mail.`,
  reminded: (title: string, number: string) => `Die ${title} zu Rechnung ${number} ist erstellt und wird in wenigen Minuten per E-Mail versendet.`,
  remindedBefore: (title: string, number: string) => `Die ${title} zu Rechnung ${number} ist bereits erstellt und wartet auf den Versand.`,
  pendingNotice: (title: string) => `Die ${title} ist erstellt und wartet auf den Versand.`,
  nextDue: (title: string, date: string) => `Die ${title} ist ab dem ${date} fällig.`,
  refused: {
    invoice_not_found: () => 'Diese Rechnung gibt es nicht.',
    customer_not_found: () => 'Diesen Kunden gibt es nicht.',
    stop_not_found: () => 'Diese Mahnsperre gibt es nicht.',
    reason_missing: () => 'Bitte geben Sie einen Grund für die Mahnsperre an.',
    reason_too_long: (v) => `Der Grund ist zu lang (höchstens ${v.max} Zeichen).`,
    invoice_closed: (v) => `Die Rechnung ${v.number} ist nicht offen; sie wird nicht gemahnt.`,
    not_overdue: (v) => `Die Rechnung ${v.number} ist noch nicht überfällig.`,
    stopped: (v) => `Für die Rechnung ${v.number} gilt eine Mahnsperre; heben Sie sie zuerst auf.`,
    dunning_disabled: () => 'Das Mahnwesen ist für diese Firma ausgeschaltet (Einstellung „dunning“ der Firma).',
    last_level: (v) => `Zu Rechnung ${v.number} ist die letzte Mahnstufe bereits versendet.`,
    too_early: (v) => `Die nächste Mahnstufe zu Rechnung ${v.number} ist erst ab dem ${formatDate(v.date ?? '')} fällig.`,
  } as Refusals,
  // The Basiszinssatz warning (admins; dashboard and dunning page)
  rateHeading: 'Basiszinssatz fehlt',
  rateMissing: (halfYear: string, rate: string, since: string) =>
    `Für das Halbjahr ab ${halfYear} ist in Kontor noch kein Basiszinssatz (§ 247 BGB) hinterlegt. Mahnungen berechnen Verzugszinsen deshalb mit dem zuletzt bekannten Satz von ${rate} (seit ${since}) weiter und weisen darauf hin.`,
  rateWhat: 'So tragen Sie den Satz nach:',
  rateSource: 'Den aktuellen Satz veröffentlicht die Deutsche Bundesbank (bundesbank.de, Stichwort „Basiszinssatz“).',
  rateFile: (halfYear: string, file: string | null) =>
    `Tragen Sie ihn in ${file ? `die Datei ${file}` : 'die Datei base-rates.json im Datenordner von Kontor (oder in die Datei, die KONTOR_BASE_RATES_FILE nennt)'} ein – eine JSON-Liste, ältester Eintrag zuerst, je Halbjahr ein Eintrag wie [{"from": "${halfYear}", "rate": "n.nn"}]: der Satz in Prozent mit zwei Nachkommastellen und Punkt, genau wie veröffentlicht.`,
  rateRestart: 'Starten Sie Kontor danach neu. Die Person, die Kontor betreibt, kann das für Sie erledigen.',
};

export const en: typeof de = {
  boxHeading: 'Dunning',
  stopBadge: 'Dunning stop',
  boxStopSet: 'The dunning stop is set. Notices not yet sent were cancelled.',
  boxStopExisted: 'A dunning stop held already; it stays as it is.',
  boxStopLifted: 'The dunning stop is lifted. The next daily dunning run duns by the usual rules again.',
  boxReminded: 'The letter is made and will be mailed in a few minutes.',
  stopsHeading: 'Dunning stops',
  stopsHint:
    'While a dunning stop holds, Kontor makes no payment reminder or dunning notice for the invoice (or all invoices of the customer); the invoice still becomes overdue. You set a dunning stop on the page of the invoice or the customer.',
  noStops: 'No dunning stops.',
  subject: 'For',
  reason: 'Reason',
  since: 'Set',
  action: 'Action',
  allInvoicesOf: (customer) => `all invoices of ${customer}`,
  invoiceOf: (number, customer) => `invoice ${number} (${customer})`,
  setBy: (date, email) => `${date} by ${email}`,
  stopActive: (date, email) => `Dunning stop since ${date} (set by ${email})`,
  stopActiveCustomer: (customer, date, email) => `Dunning stop for all invoices of ${customer} since ${date} (set by ${email})`,
  stopReasonLabel: 'Reason for the dunning stop',
  stopReasonHint: 'Required, e.g. “customer disputes the service” or “instalments agreed”. At most 500 characters.',
  setInvoiceStop: 'Set a dunning stop for this invoice',
  setCustomerStop: 'Set a dunning stop for all invoices of the customer',
  lift: 'Lift dunning stop',
  liftOf: (label) => `Lift the dunning stop for ${label}`,
  stopSet: (label, cancelled) =>
    `The dunning stop for ${label} is set. ${cancelled === 0 ? '' : cancelled === 1 ? 'One notice not yet sent was cancelled.' : `${cancelled} notices not yet sent were cancelled.`}`.trim(),
  stopExisted: (label) => `A dunning stop holds for ${label} already.`,
  stopLifted: (label) => `The dunning stop for ${label} is lifted. The next daily dunning run duns by the usual rules again.`,
  stopLiftedBefore: (label) => `The dunning stop for ${label} was lifted already.`,
  remindNow: (title) => `Send ${title} now`,
  remindHint: (title) =>
    `The invoice is overdue. Instead of waiting for the daily dunning run, Kontor makes the ${title} at once (with the same rules for fees and interest) and mails it.`,
  reminded: (title, number) => `The ${title} for invoice ${number} is made and will be mailed in a few minutes.`,
  remindedBefore: (title, number) => `The ${title} for invoice ${number} was made already and waits to be mailed.`,
  pendingNotice: (title) => `The ${title} is made and waits to be mailed.`,
  nextDue: (title, date) => `The ${title} is due from ${date}.`,
  refused: {
    invoice_not_found: () => 'This invoice does not exist.',
    customer_not_found: () => 'This customer does not exist.',
    stop_not_found: () => 'This dunning stop does not exist.',
    reason_missing: () => 'Please give a reason for the dunning stop.',
    reason_too_long: (v) => `The reason is too long (at most ${v.max} characters).`,
    invoice_closed: (v) => `Invoice ${v.number} is not open; it is not dunned.`,
    not_overdue: (v) => `Invoice ${v.number} is not overdue yet.`,
    stopped: (v) => `A dunning stop holds for invoice ${v.number}; lift it first.`,
    dunning_disabled: () => 'Dunning is switched off for this company (the company setting “dunning”).',
    last_level: (v) => `The last dunning level for invoice ${v.number} was sent already.`,
    too_early: (v) => `The next dunning level for invoice ${v.number} is due from ${v.date}.`,
  },
  rateHeading: 'Base interest rate missing',
  rateMissing: (halfYear, rate, since) =>
    `Kontor has no Basiszinssatz (§ 247 BGB) for the half-year from ${halfYear} yet. Dunning notices therefore charge default interest with the last known rate of ${rate} (since ${since}) and say so.`,
  rateWhat: 'How to add the rate:',
  rateSource: 'The Deutsche Bundesbank publishes the current rate (bundesbank.de, “Basiszinssatz”).',
  rateFile: (halfYear, file) =>
    `Add it to ${file ? `the file ${file}` : 'the file base-rates.json in Kontor’s data folder (or the file KONTOR_BASE_RATES_FILE names)'}: a JSON list, oldest entry first, one entry per half-year like [{"from": "${halfYear}", "rate": "n.nn"}], the rate in percent with two decimals and a point, exactly as published.`,
  rateRestart: 'Then restart Kontor. Whoever runs Kontor can do this for you.',
};
