import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import { createDatevExport } from '../../src/modules/bookkeeping/index.ts';
import { setPayoutAccount } from '../../src/modules/commissions/index.ts';
import { splitDatevLine } from '../bookkeeping/fixtures.ts';
import { partnerBalance, postEvent, putAgreement, putPartner } from '../commissions/helpers.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { sepaSchemaErrors } from '../payouts/sepa-schema.ts';
import { signedIn, type WebClient } from '../web/client.ts';

// Issue 24, point 4: a request to invoice ("Bitte um Rechnungsstellung") is payable only
// after a person has recorded the partner's invoice — number, date, net, VAT, gross; a
// difference to the statement is shown and must be confirmed — in the app or with
// `kontor admin statement record-invoice`. The invoice is booked (Belegfeld 1 = the
// partner's number), the payout pays its gross and books against it.
//
// The partner from the issue: domestic_regular with billing_mode settlement. 10 % of
// 2,500.00 paid in October = 250.00; + 19 % VAT 47.50 = 297.50 (what the request asks for).

const PARTNER = {
  email: 'rechnung@vertrieb-sued.example',
  tax_status: 'domestic_regular',
  billing_mode: 'settlement',
  vat_id: 'DE811569869',
  street: 'Leopoldstraße',
  house_number: '10',
  zip: '80802',
  city: 'München',
  country_code: 'DE',
};

describe("a request to invoice is paid against the partner's recorded invoice", () => {
  let t: TestApp;
  let web: WebClient;
  let ctx: CommandContext;
  let out: string;
  let statementId: string;
  let statementNumber: string;
  let creditor: string;
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const written = async () => ({
    invoices: await countRows(t.handle, 'commission_partner_invoices'),
    journal: await countRows(t.handle, 'journal_entries'),
    audit: await countRows(t.handle, 'audit_log'),
    runs: await countRows(t.handle, 'payout_runs'),
  });
  const datevRows = async () => {
    const datev = await createDatevExport(t.handle.db, t.company.companyId, { from: '2026-11-01', to: '2026-11-30', now: t.clock.now() });
    return iconv.decode(datev.file, 'win1252').split('\r\n').slice(2, -1).map(splitDatevLine);
  };
  const actor = () => ({ userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: t.company.adminEmail });

  before(async () => {
    t = await testApp({ now: '2026-10-05T10:00:00Z' });
    out = mkdtempSync(path.join(tmpdir(), 'kontor-partner-invoice-'));
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: out, dataDir: t.dataDir, invoicing: t.invoicing };
    for (const [ref, body] of [
      ['sued', { name: 'Vertrieb Süd GmbH', ...PARTNER }],
      // A Kleinunternehmer asked to invoice; and a partner paid by Gutschrift.
      [
        'klein',
        { name: 'Klein Beratung', ...PARTNER, tax_status: 'domestic_small_business', billing_mode: 'partner_invoice', vat_id: null, tax_number: '2181508150' },
      ],
      ['gs', { name: 'Gutschrift GmbH', ...PARTNER, billing_mode: 'self_billing', self_billing_agreed_on: '2026-01-01' }],
    ] as const) {
      const id = await putPartner(t, ref, body);
      await setPayoutAccount({ db: t.handle.db, clock: t.clock, sealer }, t.company.companyId, id, { iban: 'DE89370400440532013000', bic: null }, actor());
      await putAgreement(t, `${ref}-ag`, {
        partner_ref: ref,
        start_date: '2026-01-01',
        applies_to: 'all_customers',
        tiers: [{ from_month: 1, to_month: null, percent: 10 }],
      });
    }
    const paid = await postEvent(t, { external_ref: 'oct-1', occurred_at: '2026-10-15T10:00:00Z', net_amount: '2500.00' });
    assert.equal(paid.statusCode, 201, paid.body);
    t.clock.set('2026-11-01T12:00:00Z');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2026-11-01', companyId: t.company.companyId, log: () => {} },
    );
    t.clock.set('2026-11-10T09:00:00Z');
    const partner = (await t.request('GET', '/v1/commission-partners/by-ref/crm/sued')).json();
    creditor = String(partner.kreditorennummer);
    const statement = await t.handle.db
      .selectFrom('commission_statements')
      .select(['id', 'number', 'kind', 'net_cents', 'vat_cents', 'gross_cents'])
      .where('partner_id', '=', partner.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [statement.kind, Number(statement.net_cents), Number(statement.vat_cents), Number(statement.gross_cents)],
      ['partner_invoice', 25000, 4750, 29750],
    );
    statementId = statement.id;
    statementNumber = statement.number as string;
    web = await signedIn(t);
  });
  after(async () => {
    rmSync(out, { recursive: true, force: true });
    await t.close();
  });

  test('before the invoice is recorded: not offered for payout, a forged run and marking paid are refused, nothing is paid', async () => {
    const overview = await web.get('/app/payouts');
    assert.equal(overview.status, 200);
    assert.match(overview.body, new RegExp(`name="statement" value="${statementId}"[^>]* disabled`));
    assert.match(overview.body, /Rechnung fehlt/);
    const before = await written();
    const run = await web.post('/app/payouts', { statement: statementId, execution_date: '2026-11-25', confirmed: '1' });
    assert.equal(run.status, 422);
    assert.match(
      run.body,
      new RegExp(`${statementNumber} ist eine Bitte um Rechnungsstellung: ausgezahlt wird erst, wenn die Rechnung von Vertrieb Süd GmbH erfasst ist`),
    );
    const page = await web.get(`/app/statements/${statementId}`);
    assert.match(page.body, /Als bezahlt markieren geht erst, wenn die Rechnung des Partners erfasst ist/);
    assert.doesNotMatch(page.body, /action="\/app\/statements\/[^"]+\/mark-paid"/);
    const forged = await web.post(`/app/statements/${statementId}/mark-paid`, {});
    assert.equal(forged.status, 409);
    assert.match(forged.body, /Zu dieser Bitte um Rechnungsstellung ist noch keine Rechnung des Partners erfasst/);
    const cli = await kontor('admin', 'statement', 'mark-paid', statementId, '--by', t.company.adminEmail);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /record the partner's invoice before it is paid/);
    assert.deepEqual(await written(), before);
    assert.deepEqual(await partnerBalance(t, 'sued'), { open: 0, statemented: 25000, paid: 0 });
  });

  test('the form refuses what the books cannot take, in German per field, and writes nothing', async () => {
    const page = await web.get(`/app/statements/${statementId}`);
    assert.match(page.body, /Laut Abrechnung: netto 250,00\u00a0€, Umsatzsteuer 47,50\u00a0€, brutto 297,50\u00a0€/);
    assert.match(page.body, /action="\/app\/statements\/[^"]+\/record-invoice"/);
    const before = await written();
    const cases: [Record<string, string>, Record<string, RegExp>][] = [
      [
        { number: '', invoice_date: '31.02.2026', net: 'zweihundert', vat: '47,50', gross: '297,50' },
        {
          number: /Bitte geben Sie die Rechnungsnummer des Partners an/,
          invoice_date: /Bitte geben Sie das Rechnungsdatum an/,
          net: /Bitte geben Sie den Nettobetrag als Betrag/,
        },
      ],
      // 250.00 + 47.50 = 297.50, not 297.00.
      [{ number: 'R-1', invoice_date: '08.11.2026', net: '250,00', vat: '47,50', gross: '297,00' }, { gross: /ergeben 297,50\u00a0€, nicht 297,00\u00a0€/ }],
      // 19 % of 250.00 is 47.50: an invoice showing 47.51 must be corrected by the partner (not confirmable).
      [
        { number: 'R-1', invoice_date: '08.11.2026', net: '250,00', vat: '47,51', gross: '297,51' },
        { vat: /ist nicht 19 % des Nettobetrags 250,00\u00a0€ \(47,50\u00a0€\)\. Bitte fordern Sie/ },
      ],
      [{ number: 'R-1', invoice_date: '11.11.2026', net: '250,00', vat: '47,50', gross: '297,50' }, { invoice_date: /liegt in der Zukunft/ }],
      [
        { number: 'R-1', invoice_date: '30.09.2026', net: '250,00', vat: '47,50', gross: '297,50' },
        { invoice_date: /liegt vor dem Abrechnungszeitraum \(ab 01\.10\.2026\)/ },
      ],
      [{ number: 'R-1', invoice_date: '08.11.2026', net: '-250,00', vat: '0', gross: '-250,00' }, { net: /als Betrag/ }],
    ];
    for (const [form, errors] of cases) {
      await web.get(`/app/statements/${statementId}`);
      const refused = await web.post(`/app/statements/${statementId}/record-invoice`, form);
      assert.equal(refused.status, 422, JSON.stringify(form));
      for (const [field, message] of Object.entries(errors)) {
        assert.match(refused.body, new RegExp(`id="pi-${field}"[^>]*aria-invalid="true"`), `${field} marked invalid`);
        assert.match(refused.body, message, `${field}: ${JSON.stringify(form)}`);
      }
      // What was typed stays in the form.
      if (form.number) assert.match(refused.body, new RegExp(`id="pi-number" name="number" value="${form.number}"`));
    }
    assert.deepEqual(await written(), before);
  });

  test('a difference to the statement is shown and recorded only when confirmed; then booked with the invoice number', async () => {
    // The partner invoiced 250.37 net: 19 % = 47.5703 → 47.57, gross 297.94 (DATEV derives 297.94 × 19 / 119 = 47.57 too).
    const form = { number: 'R-2026-117', invoice_date: '08.11.2026', net: '250,37', vat: '47,57', gross: '297,94' };
    await web.get(`/app/statements/${statementId}`);
    const before = await written();
    const shown = await web.post(`/app/statements/${statementId}/record-invoice`, form);
    assert.equal(shown.status, 422);
    assert.match(shown.body, new RegExp(`Die Rechnung R-2026-117 weicht von der Abrechnung ${statementNumber} ab`));
    for (const line of [
      'Nettobetrag: Rechnung 250,37\u00a0€, Abrechnung 250,00\u00a0€ (Differenz +0,37\u00a0€)',
      'Umsatzsteuer: Rechnung 47,57\u00a0€, Abrechnung 47,50\u00a0€ (Differenz +0,07\u00a0€)',
      'Bruttobetrag: Rechnung 297,94\u00a0€, Abrechnung 297,50\u00a0€ (Differenz +0,44\u00a0€)',
    ])
      assert.ok(shown.body.includes(`<li>${line}</li>`), line);
    assert.match(shown.body, /<input type="checkbox" id="pi-confirm" name="confirm_mismatch" value="1">/);
    assert.match(shown.body, /id="pi-net" name="net" value="250,37"/);
    assert.deepEqual(await written(), before);

    const recorded = await web.post(`/app/statements/${statementId}/record-invoice`, { ...form, confirm_mismatch: '1' });
    assert.equal(recorded.status, 303, recorded.body);
    const page = await web.get(recorded.location as string);
    assert.match(page.body, /Die Rechnung des Partners ist erfasst und gebucht/);
    assert.match(page.body, /Rechnung R-2026-117 vom 08\.11\.2026/);
    assert.match(page.body, /Bestätigte Abweichung zur Abrechnung/);
    assert.match(page.body, /Ausgezahlt wird der Rechnungsbetrag 297,94\u00a0€/);
    assert.match(page.body, /Rechnung des Partners erfasst/, 'in the history');
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'after'])
      .where('subject_id', '=', statementId)
      .where('action', '=', 'statement.invoice_recorded')
      .executeTakeFirstOrThrow();
    assert.equal(audit.user_id, t.company.userId);
    assert.deepEqual((audit.after as Record<string, unknown>).differences, [
      'Nettobetrag: Rechnung 250,37\u00a0€, Abrechnung 250,00\u00a0€ (Differenz +0,37\u00a0€)',
      'Umsatzsteuer: Rechnung 47,57\u00a0€, Abrechnung 47,50\u00a0€ (Differenz +0,07\u00a0€)',
      'Bruttobetrag: Rechnung 297,94\u00a0€, Abrechnung 297,50\u00a0€ (Differenz +0,44\u00a0€)',
    ]);
    // The books: the partner's invoice, dated the day recorded (10.11.), Belegfeld 1 = its number.
    const rows = (await datevRows()).filter((row) => row[6] === creditor);
    assert.deepEqual(
      rows.map((row) => [row[0], row[1], row[7], row[8], row[9], row[10], row[13]]),
      [['297,94', 'H', '4760', '9', '1011', 'R-2026-117', 'Rechnung R-2026-117 vom 08.11.2026 Vertrieb Süd GmbH']],
    );
  });

  test('the payout pays the invoice’s gross, names its number, and books against it (Belegfeld 1 = the partner’s number)', async () => {
    const overview = await web.get('/app/payouts');
    assert.match(overview.body, new RegExp(`name="statement" value="${statementId}" id="s-${statementId}" aria-label`));
    assert.match(overview.body, /gegen Rechnung R-2026-117/);
    assert.match(overview.body, /297,94\u00a0€/);
    const run = await web.post('/app/payouts', { statement: statementId, execution_date: '2026-11-25', confirmed: '1' });
    assert.equal(run.status, 303, run.body);
    const file = (await t.handle.db.selectFrom('payout_runs').select('file').executeTakeFirstOrThrow()).file;
    assert.deepEqual(await sepaSchemaErrors(file), []);
    assert.match(file, /<InstdAmt Ccy="EUR">297\.94<\/InstdAmt>/);
    assert.match(file, new RegExp(`<Ustrd>Rechnung R-2026-117 ${statementNumber} Provision 2026-10-01 bis 2026-10-31</Ustrd>`));
    // The commission itself (net, as the ledger keeps it) is paid.
    assert.deepEqual(await partnerBalance(t, 'sued'), { open: 0, statemented: 0, paid: 25000 });
    const rows = (await datevRows()).filter((row) => row[6] === creditor);
    assert.deepEqual(
      rows.map((row) => [row[0], row[1], row[7], row[9], row[10], row[20], row[21]]),
      [
        ['297,94', 'H', '4760', '1011', 'R-2026-117', '', ''],
        // Money in transit (1360) on the execution date, until the bank statement shows the transfer.
        ['297,94', 'S', '1360', '2511', 'R-2026-117', 'Belegnummer', statementNumber],
      ],
    );
    // The partner's open item R-2026-117 is closed.
    const balance = rows.reduce((sum, row) => sum + (row[1] === 'S' ? 1 : -1) * Number(row[0]!.replace(',', '')), 0);
    assert.equal(balance, 0);
  });

  test('a paid request keeps its invoice; the same invoice again changes nothing, another one is refused', async () => {
    const same = await kontor(
      'admin',
      'statement',
      'record-invoice',
      statementId,
      '--number',
      'R-2026-117',
      '--date',
      '2026-11-08',
      '--net',
      '250.37',
      '--vat',
      '47.57',
      '--gross',
      '297.94',
      '--confirm-mismatch',
      '--by',
      t.company.adminEmail,
    );
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /invoice R-2026-117 is recorded already; nothing changed/);
    const other = await kontor(
      'admin',
      'statement',
      'record-invoice',
      statementId,
      '--number',
      'R-2026-118',
      '--date',
      '2026-11-08',
      '--net',
      '250.00',
      '--vat',
      '47.50',
      '--gross',
      '297.50',
      '--by',
      t.company.adminEmail,
    );
    assert.equal(other.code, 1);
    assert.match(other.stderr, /the invoice was not recorded: Zu dieser Abrechnung ist bereits die Rechnung R-2026-117 vom 08\.11\.2026 erfasst/);
  });

  test('the command line: a difference is listed and needs --confirm-mismatch; a Gutschrift takes no invoice; cancelling reverses the invoice’s booking', async () => {
    const klein = await t.handle.db
      .selectFrom('commission_statements as s')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
      .select(['s.id', 's.number', 'p.kreditorennummer'])
      .where('p.external_ref', '=', 'klein')
      .executeTakeFirstOrThrow();
    const args = (net: string, gross: string, vat = '0.00') => [
      'admin',
      'statement',
      'record-invoice',
      klein.id,
      '--number',
      'KB-9',
      '--date',
      '2026-11-09',
      '--net',
      net,
      '--vat',
      vat,
      '--gross',
      gross,
      '--by',
      t.company.adminEmail,
    ];
    // A Kleinunternehmer's invoice shows no VAT (§ 19 UStG).
    const withVat = await kontor(...args('250.00', '297.50', '47.50'));
    assert.equal(withVat.code, 1);
    assert.match(withVat.stderr, /Der Partner ist Kleinunternehmer \(§ 19 UStG\): seine Rechnung darf keine Umsatzsteuer ausweisen/);
    const differs = await kontor(...args('240.00', '240.00'));
    assert.equal(differs.code, 1);
    assert.match(differs.stderr, /weicht von der Abrechnung AB-2026-\d{5} ab/);
    assert.match(differs.stderr, /Nettobetrag: Rechnung 240,00\u00a0€, Abrechnung 250,00\u00a0€ \(Differenz −10,00\u00a0€\)/);
    assert.match(differs.stderr, /--confirm-mismatch records it as it is/);
    const recorded = await kontor(...args('250.00', '250.00'), '--json');
    assert.equal(recorded.code, 0, recorded.stderr);
    const view = JSON.parse(recorded.stdout);
    assert.deepEqual(
      [
        view.statement_number,
        view.number,
        view.invoice_date,
        view.net,
        view.vat,
        view.gross,
        view.differences,
        view.mismatch_confirmed,
        view.recorded_by,
        view.changed,
      ],
      [klein.number, 'KB-9', '2026-11-09', '250.00', '0.00', '250.00', [], false, t.company.adminEmail, true],
    );
    // The same number for the same partner again (on any statement) is refused.
    const gs = await t.handle.db
      .selectFrom('commission_statements as s')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
      .select(['s.id', 's.number'])
      .where('p.external_ref', '=', 'gs')
      .executeTakeFirstOrThrow();
    const onGutschrift = await kontor(
      'admin',
      'statement',
      'record-invoice',
      gs.id,
      '--number',
      'X-1',
      '--date',
      '2026-11-09',
      '--net',
      '250.00',
      '--vat',
      '47.50',
      '--gross',
      '297.50',
      '--by',
      t.company.adminEmail,
    );
    assert.equal(onGutschrift.code, 1);
    assert.match(onGutschrift.stderr, /nur zu einer Bitte um Rechnungsstellung erfasst; eine Gutschrift oder Provisionsabrechnung ist selbst der Beleg/);

    const cancelled = await kontor('admin', 'statement', 'cancel', klein.id, '--by', t.company.adminEmail, '--json');
    assert.equal(cancelled.code, 0, cancelled.stderr);
    const cancellation = JSON.parse(cancelled.stdout).cancellation.number as string;
    const rows = (await datevRows()).filter((row) => row[6] === String(klein.kreditorennummer));
    assert.deepEqual(
      rows.map((row) => [row[0], row[1], row[7], row[10], row[20], row[21]]),
      [
        ['250,00', 'H', '4760', 'KB-9', '', ''],
        // The mirror under the cancellation's number closes the partner's invoice KB-9.
        ['250,00', 'S', '4760', 'KB-9', 'Belegnummer', cancellation],
      ],
    );
  });

  test('another company sees nothing of it', async () => {
    const other = await t.newCompany('fremd');
    const stranger = await signedIn(t, 'ein anderes Passwort 2', other);
    assert.equal((await stranger.get(`/app/statements/${statementId}`)).status, 404);
    await stranger.get('/app/dashboard');
    const forged = await stranger.post(`/app/statements/${statementId}/record-invoice`, {
      number: 'Z-1',
      invoice_date: '08.11.2026',
      net: '1',
      vat: '0',
      gross: '1',
    });
    assert.equal(forged.status, 404);
  });
});
