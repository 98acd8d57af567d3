import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import { postEvent, putAgreement, putPartner } from '../commissions/helpers.ts';
import { COMPANY_FILE, countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { readCii } from '../invoicing/render/cii.ts';
import { ciiSchemaErrors } from '../invoicing/render/cii-schema.ts';
import { signedIn, type WebClient } from '../web/client.ts';
import { ciiParties } from './statement-reading.ts';

// Issue 24, point 4 (BT-42): in a Gutschrift the partner is the seller, so the e-invoice's
// seller contact is the partner's own — never the issuing company's phone, e-mail or
// contact person. XRechnung needs name, telephone and e-mail (BR-DE-5/6/7): without them
// the statement run leaves the Gutschrift a draft saying what is missing, a person adds it
// (app or `kontor admin partner contact`) and issues it. ZUGFeRD leaves out what is missing.

const ADDRESS = { street: 'Hafenstraße', house_number: '3', zip: '20457', city: 'Hamburg', country_code: 'DE', vat_id: 'DE811569869' };
const GUTSCHRIFT = { tax_status: 'domestic_regular', billing_mode: 'self_billing', self_billing_agreed_on: '2026-01-01', ...ADDRESS };

describe('the seller contact of a Gutschrift is the partner’s, and an XRechnung waits for it', () => {
  let t: TestApp;
  let web: WebClient;
  let ctx: CommandContext;
  const ids = new Map<string, string>();
  const logged: string[] = [];
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const statementOf = (ref: string) =>
    t.handle.db
      .selectFrom('commission_statements')
      .selectAll()
      .where('partner_id', '=', ids.get(ref) as string)
      .executeTakeFirstOrThrow();
  const xmlOf = async (statementId: string) => {
    const res = await web.get(`/app/statements/${statementId}/xml`);
    assert.equal(res.status, 200);
    return Buffer.from(res.body);
  };

  before(async () => {
    t = await testApp({ now: '2026-10-05T10:00:00Z' });
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: t.dataDir, dataDir: t.dataDir, invoicing: t.invoicing };
    for (const [ref, body] of [
      ['xr', { name: 'Nord Vertrieb GmbH', email: 'buchhaltung@nord.example', e_invoice_format: 'xrechnung', ...GUTSCHRIFT }],
      ['xr-bare', { name: 'Ohne Kontakt GmbH', e_invoice_format: 'xrechnung', ...GUTSCHRIFT }],
      ['zf', { name: 'Zugferd Partner GmbH', e_invoice_format: 'zugferd', ...GUTSCHRIFT }],
      ['set', { name: 'Settlement Unternehmer GmbH', tax_status: 'domestic_regular', billing_mode: 'settlement', ...ADDRESS }],
    ] as const) {
      ids.set(ref, await putPartner(t, ref, body));
      await putAgreement(t, `${ref}-ag`, {
        partner_ref: ref,
        start_date: '2026-01-01',
        applies_to: 'all_customers',
        tiers: [{ from_month: 1, to_month: null, percent: 10 }],
      });
    }
    assert.equal((await postEvent(t, { external_ref: 'oct-1', occurred_at: '2026-10-15T10:00:00Z', net_amount: '1000.00' })).statusCode, 201);
    t.clock.set('2026-11-01T12:00:00Z');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2026-11-01', companyId: t.company.companyId, log: (line) => logged.push(line) },
    );
    t.clock.set('2026-11-02T09:00:00Z');
    web = await signedIn(t);
  });
  after(() => t.close());

  test('the run leaves an XRechnung Gutschrift without the partner’s telephone a draft, saying what is missing; no number is used', async () => {
    const xr = await statementOf('xr');
    assert.deepEqual([xr.status, xr.number, xr.kind, xr.e_invoice_format], ['draft', null, 'self_billing', 'xrechnung']);
    assert.equal(
      xr.held_reason,
      'Für die XRechnung der Gutschrift fehlt beim Partner Nord Vertrieb GmbH: Telefonnummer. Bitte tragen Sie beim Partner ein, was fehlt (Kontakt für E-Rechnungen; die E-Mail-Adresse über die API), und stellen Sie die Gutschrift dann aus.',
    );
    assert.match((await statementOf('xr-bare')).held_reason as string, /fehlt beim Partner Ohne Kontakt GmbH: Telefonnummer und E-Mail-Adresse\./);
    // The ZUGFeRD partner's Gutschrift is issued: GS-2026-00001; the held ones used no number.
    assert.equal((await statementOf('zf')).number, 'GS-2026-00001');
    // The log names ids only, no partner data.
    assert.ok(logged.some((line) => line.includes(xr.id) && line.includes('stays a draft')));
    assert.ok(!logged.some((line) => line.includes('Nord Vertrieb')));
    const list = await web.get('/app/statements');
    assert.match(list.body, /Nicht ausgestellt/);
    const cli = await kontor('admin', 'statement', 'list', '--company', t.company.companyId, '--status', 'draft');
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(
      cli.stdout,
      new RegExp(
        `${xr.id}  \\(draft\\)  self_billing  draft .*\\n    held: Für die XRechnung der Gutschrift fehlt beim Partner Nord Vertrieb GmbH: Telefonnummer\\.`,
      ),
    );
    const page = await web.get(`/app/statements/${xr.id}`);
    assert.match(page.body, /fehlt beim Partner Nord Vertrieb GmbH: Telefonnummer/);
  });

  test('issuing it is refused in German until the partner’s telephone is there; nothing is numbered or booked', async () => {
    const xr = await statementOf('xr');
    const before = { journal: await countRows(t.handle, 'journal_entries'), events: await countRows(t.handle, 'events') };
    await web.get(`/app/statements/${xr.id}`);
    const refused = await web.post(`/app/statements/${xr.id}/issue`, {});
    assert.equal(refused.status, 422);
    assert.match(
      refused.body,
      /Die Gutschrift wurde nicht ausgestellt\. Für die XRechnung der Gutschrift fehlt beim Partner Nord Vertrieb GmbH: Telefonnummer\./,
    );
    const cli = await kontor('admin', 'statement', 'issue', xr.id, '--by', t.company.adminEmail);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /was not issued: Für die XRechnung der Gutschrift fehlt beim Partner Nord Vertrieb GmbH: Telefonnummer/);
    assert.deepEqual((await statementOf('xr')).status, 'draft');
    assert.deepEqual(before, { journal: await countRows(t.handle, 'journal_entries'), events: await countRows(t.handle, 'events') });
  });

  test('the partner page says what an XRechnung lacks; the contact is checked, saved and audited', async () => {
    const page = await web.get(`/app/partners/${ids.get('xr')}`);
    assert.match(page.body, /Für eine XRechnung fehlt noch: Telefonnummer\./);
    assert.match(page.body, /E-Mail-Adresse: buchhaltung@nord\.example \(aus der API\)/);
    const bad = await web.post(`/app/partners/${ids.get('xr')}/contact`, { contact_name: 'Jana Nord', phone: 'ruf an' });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /id="c-phone"[^>]*aria-invalid="true"/);
    assert.match(bad.body, /Bitte geben Sie eine Telefonnummer mit mindestens drei Ziffern an/);
    assert.equal(await countRows(t.handle, 'commission_partner_contacts'), 0);
    const saved = await web.post(`/app/partners/${ids.get('xr')}/contact`, { contact_name: 'Jana Nord', phone: '+49 40 1234567' });
    assert.equal(saved.status, 303);
    const after = await web.get(saved.location as string);
    assert.match(after.body, /Der Kontakt für E-Rechnungen ist gespeichert/);
    assert.doesNotMatch(after.body, /Für eine XRechnung fehlt noch/);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'after'])
      .where('subject_id', '=', ids.get('xr') as string)
      .execute();
    assert.deepEqual(
      audit.map((a) => [a.action, a.after]),
      [['partner.contact_changed', { contact_name: 'Jana Nord', phone: '+49 40 1234567' }]],
    );
  });

  test('issued with the partner’s contact: BT-41/42/43 and BT-34 are the partner’s, nothing of the company in BG-4', async () => {
    const xr = await statementOf('xr');
    await web.get(`/app/statements/${xr.id}`);
    const issued = await web.post(`/app/statements/${xr.id}/issue`, {});
    assert.equal(issued.status, 303, issued.body);
    const row = await statementOf('xr');
    assert.deepEqual([row.status === 'issued' || row.status === 'sent', row.number, row.held_reason], [true, 'GS-2026-00002', null]);
    const xml = await xmlOf(row.id);
    const cii = readCii(xml);
    assert.deepEqual([cii.bt41, cii.bt42, cii.bt43], ['Jana Nord', '+49 40 1234567', 'buchhaltung@nord.example']);
    assert.equal(ciiParties(xml).seller.electronicAddress, 'buchhaltung@nord.example');
    const seller = /<ram:SellerTradeParty>[\s\S]*?<\/ram:SellerTradeParty>/.exec(xml.toString())![0];
    for (const value of [COMPANY_FILE.phone, COMPANY_FILE.email, COMPANY_FILE.contact_name])
      assert.ok(!seller.includes(value), `seller party holds the company's ${value}`);
    assert.deepEqual(await ciiSchemaErrors(xml), []);
  });

  test('the command line sets a contact too; ZUGFeRD without the partner’s telephone leaves BT-42 out', async () => {
    const bare = ids.get('xr-bare') as string;
    const set = await kontor('admin', 'partner', 'contact', bare, '--phone', '040 998877', '--by', t.company.adminEmail, '--json');
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(JSON.parse(set.stdout), { partner_id: bare, contact_name: null, phone: '040 998877', changed: true });
    const refused = await kontor('admin', 'partner', 'contact', bare, '--phone', '12', '--by', t.company.adminEmail);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /mindestens drei Ziffern/);
    // Still no e-mail (set through the API): the XRechnung stays a draft.
    const held = await statementOf('xr-bare');
    const issue = await kontor('admin', 'statement', 'issue', held.id, '--by', t.company.adminEmail);
    assert.equal(issue.code, 1);
    assert.match(issue.stderr, /fehlt beim Partner Ohne Kontakt GmbH: E-Mail-Adresse\./);

    const zf = await statementOf('zf');
    const cii = readCii(await xmlOf(zf.id));
    assert.equal(cii.bt41, 'Zugferd Partner GmbH');
    assert.equal(cii.bt42, undefined, 'no telephone given: none written');
    assert.equal(cii.bt43, undefined, 'no e-mail given: none written');
  });

  test('a taxable partner with billing mode settlement: the partner page shows the request to invoice and why', async () => {
    const page = await web.get(`/app/partners/${ids.get('set')}`);
    assert.match(page.body, /<dt>Abrechnungsart<\/dt><dd>Rechnungsanforderung<\/dd>/);
    assert.match(page.body, /„settlement“ \(Provisionsabrechnung ohne Umsatzsteuer\) gilt nur für Privatpersonen/);
    assert.equal((await statementOf('set')).kind, 'partner_invoice');
  });
});
