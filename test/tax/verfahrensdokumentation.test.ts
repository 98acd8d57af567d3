import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { invitePerson } from '../../src/modules/access/people.ts';
import { lockPeriod } from '../../src/modules/bookkeeping/index.ts';
import { verfahrensdokumentation } from '../../src/modules/tax/index.ts';
import { type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { type Page, popplerMissing, readWords } from '../invoicing/render/pdf-layout.ts';

// Issue 28 §3: the draft of a company's Verfahrensdokumentation, from what Kontor holds.
// Read as a person reads it: the Markdown, and the PDF through poppler (an independent
// reader) — the four GoBD parts, the company's real facts (name, chart, number pattern and
// next number, a member's role, the lock date), the operator's placeholders; every word
// on A4 inside the margins; the same input gives the same bytes; another company's data
// never appears.

const MM = 72 / 25.4;
const VERSION = (JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;
const NOW = new Date('2026-11-28T10:00:00Z');
const MEMBER = 'erika.buchhaltung@example.com';

/** All words of the PDF in reading order, joined by single spaces. */
const pdfText = (pages: Page[]) => pages.map((page) => page.words.map((w) => w.text).join(' ')).join(' ');

describe('the Verfahrensdokumentation draft', () => {
  let t: TestApp;
  let other: TestCompany;
  let doc: { markdown: string; pdf: Buffer; fileName: string };
  let otherDoc: { markdown: string; pdf: Buffer; fileName: string };

  before(async () => {
    t = await testApp({ now: '2026-11-20T09:00:00Z' });
    await putCustomer(t, 'c1');
    const issued: { id: string; number: string }[] = [];
    for (const ref of ['vd-1', 'vd-2']) {
      const res = await postInvoice(t, {
        customer: { source: 'crm', external_ref: 'c1' },
        external_ref: ref,
        issue: true,
        lines: [{ description: 'Beratung', quantity: '1', unit: 'Stück', unit_price_net: '100.00', vat_rate: 19 }],
        service_period: { start: '2026-11-20', end: '2026-11-20' },
      });
      assert.equal(res.statusCode, 201, res.body);
      issued.push(res.json() as { id: string; number: string });
    }
    const storno = await t.request('POST', `/v1/invoices/${issued[0]!.id}/cancel`);
    assert.equal(storno.statusCode, 201, storno.body);
    const actor = { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId };
    await invitePerson({ db: t.handle.db, clock: t.clock }, actor, { email: MEMBER, role: 'member', companyIds: [t.company.companyId] });
    await lockPeriod(t.handle.db, t.clock, { companyId: t.company.companyId, until: '2026-10-31', lockedBy: t.company.userId, actor });
    other = await t.newCompany('zweite');
    doc = await verfahrensdokumentation(t.handle.db, t.company.companyId, NOW);
    otherDoc = await verfahrensdokumentation(t.handle.db, other.companyId, NOW);
  });
  after(async () => {
    await t.close();
  });

  test('the Markdown has the four GoBD parts, the control system and the change history', () => {
    for (const heading of [
      '## 1 Allgemeine Beschreibung',
      '## 2 Anwenderdokumentation',
      '## 3 Technische Systemdokumentation',
      '## 4 Betriebsdokumentation',
      '## 5 Internes Kontrollsystem',
      '## 6 Änderungshistorie',
      '### 3.2 Nummernkreise',
    ])
      assert.ok(doc.markdown.includes(`\n${heading}\n`), heading);
    assert.ok(doc.markdown.startsWith('# Verfahrensdokumentation\n'));
    assert.ok(doc.markdown.includes(`| 1 | 28.11.2026 | Entwurf erzeugt von Kontor ${VERSION} am 28.11.2026 | Kontor |`));
  });

  test("the Markdown states the company's own facts", () => {
    const md = doc.markdown;
    assert.ok(md.includes('**main GmbH**'), 'company name on the title');
    assert.ok(md.includes('| Kontenrahmen | SKR03 (DATEV) |'));
    assert.ok(md.includes('| Umsatzsteuer-Identifikationsnummer | DE136695976 |'));
    assert.ok(md.includes('| Beginn des Wirtschaftsjahres | 01.01. |'));
    assert.ok(md.includes('Regelbesteuerung'));
    assert.ok(md.includes('Umsatzsteuer-Voranmeldung: monatlich (Einstellung der Firma).'), 'the filing rhythm');
    // Two invoices and a storno drew three numbers; the next is the fourth.
    assert.ok(md.includes('| Rechnungen und Stornorechnungen | RE-{yyyy}-{seq:5} | 2026 | 3 | RE-2026-00003 | RE-2026-00004 |'), md);
    assert.ok(md.includes('| 2026 | Rechnungen und Stornorechnungen | 3 | 3 | vollständig |'));
    assert.ok(md.includes(`| ${t.company.adminEmail} | Administrator | aktiv |`));
    assert.ok(md.includes(`| ${MEMBER} | Mitglied | aktiv |`));
    assert.ok(md.includes('Der Buchungszeitraum ist gesperrt bis einschließlich 31.10.2026.'));
    assert.ok(md.includes(`| 31.10.2026 | 20.11.2026 | ${t.company.adminEmail} |`), 'the lock history names who locked');
    assert.ok(md.includes('| period.locked | 1 |'), 'the audit trail counts the lock');
    assert.ok(md.includes('**[Vom Betreiber auszufüllen: '), 'placeholders for the operator');
    assert.ok(md.includes('**[Vom Unternehmen auszufüllen: Kanzlei, Ansprechpartner]**'), 'the tax adviser is the company to fill in');
    assert.ok(md.includes('| Buchungsbelege, ausgestellte und erhaltene Rechnungen | 8 Jahre |'));
  });

  test('no secret reaches the document', () => {
    assert.ok(!doc.markdown.includes(t.company.apiKey));
    assert.ok(!doc.markdown.includes(t.company.apiKey.slice(0, 8)), 'not even the key prefix');
    assert.ok(!/scrypt\$|\$[0-9a-f]{32}/.test(doc.markdown));
    assert.ok(!doc.markdown.includes('DE89370400440532013000'), 'no IBAN');
  });

  test("a company's document never shows another company's data", () => {
    assert.ok(otherDoc.markdown.includes('**zweite GmbH**'));
    assert.ok(!doc.markdown.includes('zweite GmbH'));
    assert.ok(!doc.markdown.includes(other.adminEmail));
    assert.ok(!otherDoc.markdown.includes('main GmbH'));
    assert.ok(!otherDoc.markdown.includes(t.company.adminEmail));
    assert.ok(!otherDoc.markdown.includes(MEMBER));
    assert.ok(otherDoc.markdown.includes('Es ist noch kein Buchungszeitraum gesperrt.'));
    assert.ok(otherDoc.markdown.includes('| Rechnungen und Stornorechnungen | RE-{yyyy}-{seq:5} | 2026 | 0 | – | RE-2026-00001 |'));
  });

  test("the file name carries the company and the day of `now` in the company's time zone", async () => {
    assert.equal(doc.fileName, 'Verfahrensdokumentation_main-GmbH_2026-11-28');
    // 23:30 UTC is already the next day in Berlin.
    const late = await verfahrensdokumentation(t.handle.db, t.company.companyId, new Date('2026-11-28T23:30:00Z'));
    assert.equal(late.fileName, 'Verfahrensdokumentation_main-GmbH_2026-11-29');
    assert.ok(late.markdown.includes('Stand: 29.11.2026'));
  });

  test('the same data and the same `now` give the same Markdown and the same PDF bytes', async () => {
    const again = await verfahrensdokumentation(t.handle.db, t.company.companyId, NOW);
    assert.equal(again.markdown, doc.markdown);
    assert.ok(again.pdf.equals(doc.pdf), 'byte-identical PDF');
    const later = await verfahrensdokumentation(t.handle.db, t.company.companyId, new Date('2026-11-28T10:00:01Z'));
    assert.ok(!later.pdf.equals(doc.pdf), 'the file dates are `now`');
  });

  test('the PDF read back by poppler says the same', { skip: popplerMissing() }, () => {
    const pages = readWords(doc.pdf);
    const text = pdfText(pages);
    for (const expected of [
      'Verfahrensdokumentation',
      'main GmbH',
      '1 Allgemeine Beschreibung',
      '2 Anwenderdokumentation',
      '3 Technische Systemdokumentation',
      '4 Betriebsdokumentation',
      'RE-{yyyy}-{seq:5}',
      'RE-2026-00004',
      'SKR03',
      t.company.adminEmail,
      'Administrator',
      MEMBER,
      'Mitglied',
      '31.10.2026',
      '[Vom Betreiber auszufüllen:',
      `Kontor ${VERSION}`,
    ])
      assert.ok(text.includes(expected), `PDF text has "${expected}"`);
    assert.ok(!text.includes('zweite GmbH'));
    for (const [i, page] of pages.entries()) assert.ok(pdfText([page]).includes(`Seite ${i + 1} von ${pages.length}`), `page ${i + 1} numbered`);
    const info = execFileSync('pdfinfo', ['-isodates', '-'], { input: doc.pdf, encoding: 'utf8' });
    assert.match(info, /CreationDate:\s+2026-11-28T10:00:00Z/);
    assert.match(info, /ModDate:\s+2026-11-28T10:00:00Z/);
  });

  const insideMargins = (pages: Page[]) => {
    for (const [i, page] of pages.entries()) {
      assert.ok(Math.abs(page.width - 595.28) < 1 && Math.abs(page.height - 841.89) < 1, `page ${i + 1} is A4`);
      for (const w of page.words) {
        const where = `page ${i + 1}: "${w.text}" at (${w.xMin.toFixed(1)}, ${w.yMin.toFixed(1)})–(${w.xMax.toFixed(1)}, ${w.yMax.toFixed(1)})`;
        assert.ok(w.xMin >= 25 * MM - 0.5 && w.xMax <= page.width - 20 * MM + 0.5, where);
        assert.ok(w.yMin >= 15 * MM && w.yMax <= page.height - 10 * MM, where);
      }
    }
  };

  test('every word of every page lies on A4 inside the margins', { skip: popplerMissing() }, () => {
    const pages = readWords(doc.pdf);
    assert.ok(pages.length >= 6, `a page per part at least, got ${pages.length}`);
    insideMargins(pages);
  });

  test('a long name with Markdown characters and words wider than a column stays inside both renderings', async (c) => {
    const name = `Ä*rger_|Verwaltungs[gesellschaft] ${'Donaudampfschifffahrtsgesellschaftskapitän'.repeat(3)} & Söhne GmbH`;
    await t.handle.db
      .updateTable('companies')
      .set({ name, street: 'Straße|mit*Zeichen', register_number: 'HRB 1 B' })
      .where('id', '=', other.companyId)
      .execute();
    const odd = await verfahrensdokumentation(t.handle.db, other.companyId, NOW);
    assert.ok(odd.markdown.includes('| Firma | Ä\\*rger\\_\\|Verwaltungs\\[gesellschaft\\] Donaudampf'), 'escaped, one table cell');
    assert.ok(odd.markdown.includes('Straße\\|mit\\*Zeichen'));
    assert.match(odd.fileName, /^Verfahrensdokumentation_Ae-rger-Verwaltungs-gesellschaft-Donaudampf[A-Za-z-]*_2026-11-28$/);
    if (popplerMissing()) return c.skip('pdftotext (poppler-utils) is not installed');
    const pages = readWords(odd.pdf);
    insideMargins(pages);
    assert.ok(pdfText(pages).includes('Söhne GmbH'));
  });
});
