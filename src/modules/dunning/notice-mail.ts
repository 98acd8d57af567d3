import { footerColumns } from '../invoicing/render/pdf/footer.ts';
import { formatDate, formatEuro, mailHtml, type OutgoingMail } from '../mail/index.ts';
import { type NoticeDocument, noticeTitle } from './notice-document.ts';
import { claimRows, closingParagraphs, introParagraphs, legalNotes, paymentInstruction, salutation } from './notice-text.ts';

// The mail that carries a dunning notice: the same words as the PDF (notice-text.ts), the
// claim as a short list, and the PDF attached. A pure function of the snapshot.

/** "Zahlungserinnerung-RE-2026-00001.pdf", "1-Mahnung-RE-2026-00001.pdf". */
export function noticeFileName(doc: NoticeDocument): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
  const number = doc.invoice.number.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '-');
  return `${noticeTitle(doc.level).replace(/\.?\s+/g, '-')}-${number}.pdf`;
}

export function dunningMail(doc: NoticeDocument, pdf: Buffer): OutgoingMail {
  const claim = claimRows(doc).map((row) => `${row.label}: ${formatEuro(row.amount)}`);
  const paragraphs = [
    [salutation(doc)],
    ...introParagraphs(doc).map((text) => [text]),
    claim,
    [paymentInstruction(doc)],
    ...legalNotes(doc).map((text) => [text]),
    [`Das Schreiben vom ${formatDate(doc.noticeDate)} liegt dieser E-Mail als PDF bei.`],
    ...closingParagraphs(doc).map((text) => text.split('\n')),
  ];
  const footer = footerColumns(doc.seller).flatMap((column) => column.map((item) => item.text));
  return {
    to: doc.buyer.email,
    subject: `${noticeTitle(doc.level)} zu Rechnung ${doc.invoice.number} von ${doc.seller.name}`,
    text: `${paragraphs.map((lines) => lines.join('\n')).join('\n\n')}\n\n-- \n${footer.join('\n')}\n`,
    html: mailHtml(paragraphs, footer),
    attachments: [{ filename: noticeFileName(doc), content: pdf, contentType: 'application/pdf' }],
  };
}
