import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import iconv from 'iconv-lite';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import { createDatevExport } from '../../src/modules/bookkeeping/index.ts';
import { setPayoutAccount } from '../../src/modules/commissions/index.ts';
import { runPayout } from '../../src/modules/payouts/payout-run.ts';
import { issuableKind, statementKind } from '../../src/modules/statements/statement-terms.ts';
import { splitDatevLine } from '../bookkeeping/fixtures.ts';
import { postEvent, putAgreement, putPartner } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { sepaSchemaErrors } from '../payouts/sepa-schema.ts';
import { pdfText } from './statement-reading.ts';

// Issue 24, point 4: a statement's PDF, its amounts in the API, the pain.001 transfer that
// pays it and its bookings in the DATEV export say the same, for every tax status × billing
// mode. Every partner earns 10 % of 2,500.00 paid in October = 250.00 net (25000 cents);
// a domestic regular partner's statement adds 19 % VAT = 47.50 (gross 297.50), every other
// tax status none (gross 250.00). A request to invoice is paid only against the partner's
// invoice, recorded here with the requested amounts (number R-<n>).

type TaxStatus = 'domestic_regular' | 'domestic_small_business' | 'eu_reverse_charge' | 'third_country' | 'private_person';
type BillingMode = 'self_billing' | 'settlement' | 'partner_invoice';

const TAX_STATUSES: TaxStatus[] = ['domestic_regular', 'domestic_small_business', 'eu_reverse_charge', 'third_country', 'private_person'];
const BILLING_MODES: BillingMode[] = ['self_billing', 'settlement', 'partner_invoice'];

/** Per tax status: where the partner lives, its tax ids, payout account, and the statement's VAT and booking. */
const STATUS: Record<
  TaxStatus,
  {
    partner: Record<string, unknown>;
    iban: string;
    bic: string | null;
    vatCents: number;
    /** DATEV: Gegenkonto (SKR03) and BU-Schlüssel of the creditor's H booking. */
    account: string;
    taxKey: string;
  }
> = {
  domestic_regular: {
    partner: { vat_id: 'DE811569869', country_code: 'DE', zip: '80336', city: 'München' },
    iban: 'DE89370400440532013000',
    bic: null,
    // 250.00 × 19 % = 47.50
    vatCents: 4750,
    account: '4760',
    taxKey: '9',
  },
  domestic_small_business: {
    partner: { tax_number: '2181508150', country_code: 'DE', zip: '04109', city: 'Leipzig' },
    iban: 'DE02120300000000202051',
    bic: null,
    vatCents: 0,
    account: '4760',
    taxKey: '',
  },
  eu_reverse_charge: {
    partner: { vat_id: 'FR40303265045', country_code: 'FR', zip: '75004', city: 'Paris' },
    iban: 'FR1420041010050500013M02606',
    bic: 'PSSTFRPPPAR',
    vatCents: 0,
    // § 13b Abs. 1: DATEV's automatic account books input and output VAT itself.
    account: '3123',
    taxKey: '',
  },
  third_country: {
    partner: { tax_number: 'CHE-116.281.710', country_code: 'CH', zip: '8001', city: 'Zürich' },
    iban: 'CH9300762011623852957',
    bic: 'UBSWCHZH80A',
    vatCents: 0,
    account: '3125',
    taxKey: '',
  },
  private_person: {
    partner: { country_code: 'DE', zip: '50667', city: 'Köln' },
    iban: 'DE75512108001245126199',
    bic: null,
    vatCents: 0,
    account: '4760',
    taxKey: '',
  },
};

const NET = 25000;

/** The kind the rule gives (decisions.md, issue 24): private person → settlement; a Gutschrift needs self-billing (agreed); else a request to invoice. */
function expectedKind(status: TaxStatus, mode: BillingMode): BillingMode {
  if (status === 'private_person') return 'settlement';
  return mode === 'self_billing' ? 'self_billing' : 'partner_invoice';
}

/** What the PDF must say (whitespace folded) and must not say, by kind and tax status. */
function pdfExpectations(kind: BillingMode, status: TaxStatus): { says: string[]; never: string[] } {
  const never = ['Privatperson', 'Gutschrift', 'Rechnungsstellung', '47,50'];
  const without = (...keep: string[]) => never.filter((n) => !keep.includes(n));
  if (kind === 'settlement')
    return { says: ['Provisionsabrechnung', 'Privatperson', 'Auszahlungsbetrag 250,00 €', 'keine Umsatzsteuer'], never: without('Privatperson') };
  if (kind === 'self_billing') {
    // A Kleinunternehmer's Gutschrift shows no VAT row at all (§ 19 UStG), only the total.
    const tax =
      status === 'domestic_regular'
        ? ['Provision netto 250,00 €', 'zzgl. 19 % USt 47,50 €', 'Gesamtbetrag 297,50 €']
        : status === 'domestic_small_business'
          ? ['§ 19 UStG', 'Gesamtbetrag 250,00 €']
          : ['Provision netto 250,00 €', 'Umsatzsteuer 0 % (§ 13b UStG) 0,00 €', 'Gesamtbetrag 250,00 €'];
    return { says: ['Gutschrift', ...tax], never: without('Gutschrift', ...(status === 'domestic_regular' ? ['47,50'] : [])) };
  }
  const tax =
    status === 'domestic_regular'
      ? ['von 250,00 € zuzüglich 19 % Umsatzsteuer (47,50 €), insgesamt 297,50 €, eine Rechnung']
      : status === 'domestic_small_business'
        ? ['von 250,00 € eine Rechnung ohne Umsatzsteuer mit Hinweis auf § 19 UStG']
        : ['von 250,00 € eine Rechnung ohne Umsatzsteuer mit dem Hinweis „Steuerschuldnerschaft des Leistungsempfängers“'];
  return {
    says: ['Bitte um Rechnungsstellung', 'Diese Abrechnung ist keine Rechnung', ...tax],
    never: without('Rechnungsstellung', ...(status === 'domestic_regular' ? ['47,50'] : [])),
  };
}

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, isArray: (name) => name === 'CdtTrfTxInf' });

/** EndToEndId → InstdAmt of a pain.001 file. */
function transfers(file: string): Map<string, string> {
  type Transfer = { PmtId: { EndToEndId: string }; Amt: { InstdAmt: { '#text': string } } };
  const infos = xml.parse(file).Document.CstmrCdtTrfInitn.PmtInf.CdtTrfTxInf as Transfer[];
  return new Map(infos.map((info) => [info.PmtId.EndToEndId, info.Amt.InstdAmt['#text']]));
}

describe('statementKind: the tax status decides first, a Gutschrift needs self-billing agreed and not objected', () => {
  const partner = (status: TaxStatus, mode: BillingMode, agreed: string | null = '2026-01-01', objected: string | null = null) => ({
    tax_status: status,
    billing_mode: mode,
    self_billing_agreed_on: agreed,
    self_billing_objected_at: objected,
    e_invoice_format: 'auto' as const,
  });
  for (const status of TAX_STATUSES)
    for (const mode of BILLING_MODES)
      test(`${status} × ${mode} → ${expectedKind(status, mode)}`, () => assert.equal(statementKind(partner(status, mode)), expectedKind(status, mode)));
  test('self_billing without an agreement, or objected, asks the partner to invoice', () => {
    assert.equal(statementKind(partner('domestic_regular', 'self_billing', null)), 'partner_invoice');
    assert.equal(statementKind(partner('domestic_regular', 'self_billing', '2026-01-01', '2026-05-01T10:00:00Z')), 'partner_invoice');
  });
  test('a draft made as settlement for a taxable partner is issued as a request to invoice', () => {
    assert.equal(issuableKind('settlement', 'regular'), 'partner_invoice');
    assert.equal(issuableKind('settlement', 'small_business'), 'partner_invoice');
    assert.equal(issuableKind('settlement', 'private_person'), 'settlement');
    assert.equal(issuableKind('self_billing', 'regular'), 'self_billing');
  });
});

describe('statements, payouts and books agree for every tax status × billing mode', () => {
  let t: TestApp;
  let ctx: CommandContext;
  let out: string;
  const combos = TAX_STATUSES.flatMap((status) => BILLING_MODES.map((mode) => ({ status, mode, ref: `${status}-${mode}`.replaceAll('_', '-') })));
  type Seen = {
    id: string;
    number: string;
    creditor: string;
    api: { kind: string; tax_note: string; net_cents: number; vat_cents: number; gross_cents: number };
    invoiceNumber: string | null;
  };
  const seen = new Map<string, Seen>();
  let payoutFile = '';
  let datevRows: string[][] = [];
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };

  before(async () => {
    t = await testApp({ now: '2026-10-05T10:00:00Z' });
    out = mkdtempSync(path.join(tmpdir(), 'kontor-agreement-'));
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: out, dataDir: t.dataDir, invoicing: t.invoicing };
    const actor = { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: t.company.adminEmail };
    for (const [index, { status, mode, ref }] of combos.entries()) {
      const partnerId = await putPartner(t, ref, {
        name: `Partner ${index + 1} (${status}, ${mode})`,
        email: `p${index + 1}@partner.example`,
        tax_status: status,
        billing_mode: mode,
        self_billing_agreed_on: '2026-01-01',
        street: 'Hauptweg',
        house_number: String(index + 1),
        ...STATUS[status].partner,
      });
      await setPayoutAccount(
        { db: t.handle.db, clock: t.clock, sealer },
        t.company.companyId,
        partnerId,
        { iban: STATUS[status].iban, bic: STATUS[status].bic },
        actor,
      );
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
    const list = await t.request('GET', '/v1/commission-statements?limit=200');
    assert.equal(list.statusCode, 200, list.body);
    const statements = list.json().data as (Seen['api'] & { id: string; number: string; partner_id: string })[];
    for (const [index, { ref }] of combos.entries()) {
      const partner = (await t.request('GET', `/v1/commission-partners/by-ref/crm/${ref}`)).json();
      const statement = statements.find((s) => s.partner_id === partner.id);
      assert.ok(statement, `${ref}: a statement`);
      let invoiceNumber: string | null = null;
      if (statement.kind === 'partner_invoice') {
        invoiceNumber = `R-${index + 1}`;
        const money = (cents: number) => (cents / 100).toFixed(2);
        const recorded = await kontor(
          'admin',
          'statement',
          'record-invoice',
          statement.id,
          '--number',
          invoiceNumber,
          '--date',
          '2026-11-08',
          '--net',
          money(statement.net_cents),
          '--vat',
          money(statement.vat_cents),
          '--gross',
          money(statement.gross_cents),
          '--by',
          t.company.adminEmail,
          '--json',
        );
        assert.equal(recorded.code, 0, `${ref}: ${recorded.stderr}`);
      }
      seen.set(ref, { id: statement.id, number: statement.number, creditor: partner.kreditorennummer, api: statement, invoiceNumber });
    }
    const run = await runPayout(
      { db: t.handle.db, clock: t.clock, sealer },
      t.company.companyId,
      { statementIds: [...seen.values()].map((s) => s.id), executionDate: '2026-11-25' },
      actor,
    );
    payoutFile = run.file;
    const datev = await createDatevExport(t.handle.db, t.company.companyId, { from: '2026-11-01', to: '2026-11-30', now: t.clock.now() });
    datevRows = iconv.decode(datev.file, 'win1252').split('\r\n').slice(2, -1).map(splitDatevLine);
  });
  after(async () => {
    rmSync(out, { recursive: true, force: true });
    await t.close();
  });

  test('the payout file passes the EPC schema and pays each statement once', async () => {
    assert.deepEqual(await sepaSchemaErrors(payoutFile), []);
    assert.equal(transfers(payoutFile).size, combos.length);
  });

  for (const { status, mode, ref } of combos) {
    test(`${status} × ${mode}: kind ${expectedKind(status, mode)}; PDF, API, pain.001 and DATEV say the same`, async () => {
      const s = seen.get(ref)!;
      const kind = expectedKind(status, mode);
      const vat = STATUS[status].vatCents;
      const gross = NET + vat;
      // The API's amounts.
      assert.deepEqual([s.api.kind, s.api.net_cents, s.api.vat_cents, s.api.gross_cents], [kind, NET, vat, gross], `${ref}: API ${JSON.stringify(s.api)}`);
      assert.match(s.number, kind === 'self_billing' ? /^GS-2026-\d{5}$/ : /^AB-2026-\d{5}$/);
      // The PDF, as a person reads it.
      const pdf = await t.request('GET', `/v1/commission-statements/${s.id}/pdf`);
      assert.equal(pdf.statusCode, 200);
      const text = pdfText(pdf.rawPayload);
      const { says, never } = pdfExpectations(kind, status);
      for (const phrase of says) assert.ok(text.includes(phrase), `${ref}: the PDF lacks “${phrase}”:\n${text}`);
      for (const phrase of never) assert.ok(!text.includes(phrase), `${ref}: the PDF says “${phrase}”:\n${text}`);
      // The transfer: the gross (what the partner's invoice asks for, when it is a request).
      const amount = (gross / 100).toFixed(2);
      assert.equal(transfers(payoutFile).get(s.number), amount, `${ref}: pain.001 amount`);
      // DATEV: on the partner's creditor account the commission (H) and the payout (S, to
      // money in transit 1360), both under the open item's key: the statement's number, or
      // the partner's own invoice number for a request to invoice.
      const key = s.invoiceNumber ?? s.number;
      const rows = datevRows.filter((row) => row[6] === s.creditor).map((row) => [row[0], row[1], row[7], row[8], row[10]]);
      const datevAmount = amount.replace('.', ',');
      assert.deepEqual(
        rows,
        [
          [datevAmount, 'H', STATUS[status].account, STATUS[status].taxKey, key],
          [datevAmount, 'S', '1360', '', key],
        ],
        `${ref}: DATEV rows`,
      );
    });
  }
});
