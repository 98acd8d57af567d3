import { footerColumns } from '../invoicing/render/pdf/footer.ts';
import { formatDate, formatEuro, mailHtml, type OutgoingMail } from '../mail/index.ts';
import { statementTitle } from './render/statement-notes.ts';
import type { StatementDocument } from './statement-document.ts';

// The mail that carries a statement to the partner: a few German sentences, the PDF and,
// for an XRechnung partner, the XML. A pure function of the snapshot.

const safe = (text: string) => text.replace(/[\\/:*?"<>|\s]+/g, '-');

export function statementMail(doc: StatementDocument, files: { pdf: Buffer; xml: Buffer | null }): OutgoingMail {
  const title = statementTitle(doc);
  const paragraphs: string[][] = [
    [`Guten Tag ${doc.partner.name},`],
    [
      `anbei erhalten Sie unsere ${title} ${doc.number} vom ${formatDate(doc.issueDate)} für den Zeitraum ${formatDate(doc.period.start)} bis ${formatDate(doc.period.end)}.`,
    ],
    [`Betrag: ${formatEuro(doc.totals.gross)}`],
  ];
  if (doc.kind === 'partner_invoice') paragraphs.push(['Bitte stellen Sie uns über diesen Betrag eine Rechnung; wir zahlen nach Eingang Ihrer Rechnung.']);
  else if (doc.type === 'statement') paragraphs.push([`Wir überweisen den Betrag bis zum ${formatDate(doc.payoutDueDate)}.`]);
  if (doc.kind === 'self_billing' && doc.type === 'statement')
    paragraphs.push(['Wenn Sie mit dieser Gutschrift nicht einverstanden sind, können Sie ihr widersprechen; antworten Sie dazu einfach auf diese E-Mail.']);
  paragraphs.push(['Mit freundlichen Grüßen', doc.company.name]);
  const footer = footerColumns(doc.company).flatMap((column) => column.map((item) => item.text));
  const base = `${safe(title)}-${safe(doc.number)}`;
  return {
    to: doc.partner.email,
    subject: `${title} ${doc.number} von ${doc.company.name}`,
    text: `${paragraphs.map((lines) => lines.join('\n')).join('\n\n')}\n\n-- \n${footer.join('\n')}\n`,
    html: mailHtml(paragraphs, footer),
    attachments: [
      { filename: `${base}.pdf`, content: files.pdf, contentType: 'application/pdf' },
      ...(doc.eInvoice === 'xrechnung' && files.xml ? [{ filename: `${base}.xml`, content: files.xml, contentType: 'application/xml' }] : []),
    ],
  };
}
