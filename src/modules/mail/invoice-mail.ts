import type { InvoiceDocument, Seller } from '../invoicing/document.ts';
import { formatDate, formatEuro, formatIban } from './german-format.ts';
import { mailHtml } from './mail-html.ts';
import type { MailAttachment, OutgoingMail } from './types.ts';

// The German mail that carries an issued invoice or storno (Stornorechnung, cancellation
// invoice) to the buyer: a short letter with the payment details, the PDF, and for an
// XRechnung the standalone XML (design §4; ZUGFeRD carries its XML inside the PDF).
// A pure function of the frozen document, like the other renderers.

export function invoiceMail(doc: InvoiceDocument, files: { pdf: Buffer; xml: Buffer | null }): OutgoingMail {
  const storno = doc.type === 'storno';
  const paragraphs = [
    [doc.buyer.contactName?.trim() ? `Guten Tag ${doc.buyer.contactName.trim()},` : 'Sehr geehrte Damen und Herren,'],
    storno ? stornoBody(doc) : invoiceBody(doc),
    ...(storno ? [] : [paymentBlock(doc)]),
    [attachmentNote(doc, files.xml !== null)],
    ['Bei Fragen zu dieser Rechnung antworten Sie bitte einfach auf diese E-Mail.'],
    ['Mit freundlichen Grüßen', ...(doc.seller.contactName?.trim() ? [doc.seller.contactName.trim()] : []), doc.seller.name],
  ];
  const footer = companyFooter(doc.seller);
  return {
    to: doc.buyer.email,
    subject: `${storno ? 'Stornorechnung' : 'Rechnung'} ${doc.number} von ${doc.seller.name}`,
    text: `${paragraphs.map((lines) => lines.join('\n')).join('\n\n')}\n\n-- \n${footer.join('\n')}\n`,
    html: mailHtml(paragraphs, footer),
    attachments: attachments(doc, files),
  };
}

function invoiceBody(doc: InvoiceDocument): string[] {
  return [
    `anbei erhalten Sie unsere Rechnung ${doc.number} vom ${formatDate(doc.issueDate)}.`,
    '',
    `Rechnungsnummer: ${doc.number}`,
    `Rechnungsdatum: ${formatDate(doc.issueDate)}`,
    `Ihre Kundennummer: ${doc.buyer.customerNumber}`,
    `Rechnungsbetrag: ${formatEuro(doc.totals.gross)}`,
    `Fällig am: ${formatDate(doc.dueDate)}`,
  ];
}

function stornoBody(doc: InvoiceDocument): string[] {
  const original = doc.precedingInvoice;
  const lines = [
    `anbei erhalten Sie unsere Stornorechnung ${doc.number} vom ${formatDate(doc.issueDate)}${original ? ` zur Rechnung ${original.number} vom ${formatDate(original.issueDate)}` : ''}.`,
  ];
  if (original) lines.push(`Die Rechnung ${original.number} ist damit aufgehoben. Bitte überweisen Sie den Betrag dieser Rechnung nicht.`);
  lines.push(
    '',
    `Stornorechnungsnummer: ${doc.number}`,
    `Ihre Kundennummer: ${doc.buyer.customerNumber}`,
    `Betrag der Stornorechnung: ${formatEuro(doc.totals.gross)}`,
  );
  return lines;
}

function paymentBlock(doc: InvoiceDocument): string[] {
  const { seller } = doc;
  const due = formatDate(doc.dueDate);
  if (!seller.iban) return [`Bitte überweisen Sie den Betrag bis zum ${due} unter Angabe der Rechnungsnummer ${doc.number}.`];
  return [
    `Bitte überweisen Sie den Betrag von ${formatEuro(doc.totals.gross)} bis zum ${due} auf folgendes Konto:`,
    `Kontoinhaber: ${seller.name}`,
    `IBAN: ${formatIban(seller.iban)}`,
    ...(seller.bic ? [`BIC: ${seller.bic}`] : []),
    ...(seller.bankName ? [`Bank: ${seller.bankName}`] : []),
    `Verwendungszweck: ${doc.number}`,
  ];
}

function attachmentNote(doc: InvoiceDocument, hasXml: boolean): string {
  const what = doc.type === 'storno' ? 'Die Stornorechnung' : 'Die Rechnung';
  if (doc.eInvoice === 'xrechnung' && hasXml) return `${what} liegt dieser E-Mail als PDF bei, die elektronische Rechnung (XRechnung) als XML-Datei.`;
  if (doc.eInvoice === 'zugferd') return `${what} liegt dieser E-Mail als PDF bei; die PDF-Datei enthält die elektronische Rechnung im ZUGFeRD-Format.`;
  return `${what} liegt dieser E-Mail als PDF bei.`;
}

/** The sender's details as a letter footer (the mail counterpart of the PDF's footer; § 35a GmbHG / § 37a HGB style). */
function companyFooter(seller: Seller): string[] {
  const street = [seller.street, seller.houseNumber].filter(Boolean).join(' ');
  const place = [seller.zip, seller.city].filter(Boolean).join(' ');
  const address = [street, place, seller.countryCode !== 'DE' ? seller.countryCode : ''].filter(Boolean).join(', ');
  const legalForm = seller.legalForm && !seller.name.includes(seller.legalForm) ? `Rechtsform: ${seller.legalForm}` : '';
  const contact = [seller.phone ? `Telefon: ${seller.phone}` : '', seller.email ? `E-Mail: ${seller.email}` : ''].filter(Boolean).join(' · ');
  const tax = [seller.vatId ? `USt-IdNr.: ${seller.vatId}` : '', seller.taxNumber ? `Steuernummer: ${seller.taxNumber}` : ''].filter(Boolean).join(' · ');
  const bank = seller.iban ? [seller.bankName, `IBAN ${formatIban(seller.iban)}`, seller.bic ? `BIC ${seller.bic}` : ''].filter(Boolean).join(' · ') : '';
  return [seller.name, address, legalForm, contact, tax, bank].filter(Boolean);
}

function attachments(doc: InvoiceDocument, files: { pdf: Buffer; xml: Buffer | null }): MailAttachment[] {
  const base = fileName(doc.number);
  const list: MailAttachment[] = [{ filename: `${base}.pdf`, content: files.pdf, contentType: 'application/pdf' }];
  if (files.xml && doc.eInvoice === 'xrechnung') list.push({ filename: `${base}.xml`, content: files.xml, contentType: 'application/xml' });
  return list;
}

/** A number pattern may contain characters that no file system or mail client takes in a file name. */
function fileName(number: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
  return number.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '-');
}
