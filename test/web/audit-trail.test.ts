import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EVENT_KINDS, INVOICE_EVENT_KINDS } from '../../src/modules/webhooks/event-kinds.ts';
import { newId } from '../../src/shared/ids.ts';
import { messages } from '../../src/web/i18n.ts';
import { hasAuditWords, hasEventWords } from '../../src/web/pages/audit-words.ts';
import { type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { issueInvoice } from '../payments/helpers.ts';
import { signedIn, signedInMember, type WebClient } from './client.ts';

// Issue 25, points 2.2 and 2.5: every history and audit entry reads as a sentence (each
// event kind and audit action the code writes has words, found by reading the source, so a
// new kind without words fails here); the audit trail names its subjects and links them,
// shows what changed as a short list (long values folded), filters by area, person and
// dates, pages by key within the filter, and exports the filter as CSV for German Excel.

const SRC = path.resolve(import.meta.dirname, '../../src');

/** The audit actions the code writes: string literals on `action` lines of files that record audit rows. */
function auditActionsInSource(): string[] {
  const kinds = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (file.endsWith('.ts') && !file.includes(`${path.sep}texts${path.sep}`) && !file.endsWith('i18n.ts')) {
        const text = readFileSync(file, 'utf8');
        if (!/recordAudit\(|\baudit\(trx/.test(text)) continue;
        for (const line of text.split('\n'))
          if (/action|audit\(/.test(line)) for (const m of line.matchAll(/'([a-z]{2,}(?:_[a-z]+)*\.[a-z]+(?:_[a-z]+)*)'/g)) kinds.add(m[1] as string);
      }
    }
  };
  walk(SRC);
  return [...kinds].sort();
}

const RAW_KEY =
  /\b[a-z]{2,}(?:_[a-z]+)*\.[a-z]+_[a-z_]+\b|\b(?:invoice|person|user|statement|payment|dunning|company|period|datev|webhook|api_key|partner|attribution|payout)\.[a-z]+\b/;

/** The cell texts of the audit table's rows. */
function rows(body: string): string[][] {
  const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(body)?.[1] ?? '';
  return [...tbody.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...(m[1] as string).matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
      (c[1] as string)
        .replace(/<br>/g, ' | ')
        .replace(/<[^>]+>/g, '')
        .replace(/[ \n]+/g, ' ')
        .trim(),
    ),
  );
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('every event and audit entry reads as a sentence', () => {
  let t: TestApp;
  let other: TestCompany;
  let web: WebClient;
  let invoice: { id: string; number: string };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    invoice = await issueInvoice(t, 'w-1');
    other = await t.newCompany('words');
    web = await signedIn(t);
  });
  after(() => t.close());

  test('the source writes the audit actions this test knows about (the scan works)', () => {
    const kinds = auditActionsInSource();
    for (const known of ['invoice.issued', 'person.invited', 'statement.issued', 'attribution.confirmed', 'payment.reversed', 'company.settings_changed'])
      assert.ok(kinds.includes(known), known);
    assert.ok(kinds.length >= 40, `${kinds.length} kinds`);
  });

  test('every audit action and event kind has words in German and English', () => {
    for (const lang of ['de', 'en'] as const) {
      const missing = auditActionsInSource().filter((k) => !hasAuditWords(messages[lang], k));
      assert.deepEqual(missing, [], `audit actions without ${lang} words`);
      const events = EVENT_KINDS.filter((k) => !hasEventWords(messages[lang], k));
      assert.deepEqual(events, [], `event kinds without ${lang} words`);
    }
  });

  test('the trail shows each action as a sentence, never its key', async () => {
    const kinds = auditActionsInSource();
    const db = t.handle.db;
    for (const [i, action] of kinds.entries())
      await db
        .insertInto('audit_log')
        .values({
          organization_id: other.organizationId,
          id: newId('aud'),
          company_id: other.companyId,
          user_id: other.userId,
          at: new Date(Date.UTC(2026, 10, 1, 8, i)),
          action,
          subject_type: 'company',
          subject_id: other.companyId,
          before: JSON.stringify({ status: 'alt' }),
          after: JSON.stringify({ status: 'neu', to: 'kunde@beispiel.example' }),
        })
        .execute();
    const client = await signedIn(t, 'ein gutes Passwort 1', other);
    const seen: string[][] = [];
    let url: string | undefined = '/app/audit';
    while (url) {
      const page = await client.get(url);
      assert.equal(page.status, 200);
      seen.push(...rows(page.body));
      url = /<a href="([^"]+)" rel="next">/.exec(page.body)?.[1]?.replace(/&amp;/g, '&');
    }
    const sentences = seen.map((r) => r[2] as string);
    assert.equal(sentences.length, kinds.length + 1, 'every inserted action and the password change');
    for (const sentence of sentences) {
      assert.doesNotMatch(sentence, RAW_KEY);
      assert.doesNotMatch(sentence, /Änderung von/, 'no kind without words');
    }
    assert.ok(sentences.includes(`Einstellungen der Firma words GmbH geändert von ${other.adminEmail} | Einstellungen`), sentences.join('\n'));
  });

  test('the invoice history shows each event kind as a sentence, the reminder with its address', async () => {
    const db = t.handle.db;
    for (const [i, type] of INVOICE_EVENT_KINDS.entries())
      await db
        .insertInto('events')
        .values({
          company_id: t.company.companyId,
          id: newId('evt'),
          type,
          subject_id: invoice.id,
          data: JSON.stringify({ dunning_level: 0 }),
          created_at: new Date(Date.UTC(2026, 11, 1, 8, i)),
        })
        .execute();
    const page = await web.get(`/app/invoices/${invoice.id}`);
    assert.equal(page.status, 200, page.body.slice(0, 3000));
    const list = /<ul class="timeline">([\s\S]*?)<\/ul>/.exec(page.body)?.[1] ?? '';
    const lines = [...list.matchAll(/<\/time> ([^<]*)<\/li>/g)].map((m) => m[1] as string);
    assert.ok(lines.length >= INVOICE_EVENT_KINDS.length, list);
    for (const line of lines) {
      assert.doesNotMatch(line, RAW_KEY);
      assert.doesNotMatch(line, /Ereignis ohne Beschreibung/);
    }
    assert.ok(lines.includes('Zahlungserinnerung per E-Mail gesendet'), lines.join('\n'));
    assert.ok(lines.includes(`Rechnung ${invoice.number} per E-Mail an buchhaltung@beispiel.example gesendet`), lines.join('\n'));
    assert.ok(lines.includes(`Rechnung ${invoice.number} ist überfällig`), lines.join('\n'));
  });

  describe('the audit trail page', () => {
    let member: { client: WebClient; userId: string; email: string };
    const LONG = 'Der Leistungsort liegt nach Angabe des Kunden in Deutschland, bitte prüfen Sie die USt-IdNr. '.repeat(3);

    before(async () => {
      member = await signedInMember(t, 'mitglied@beispiel.example');
      const customer = await t.handle.db.selectFrom('customers').select('id').where('company_id', '=', t.company.companyId).executeTakeFirstOrThrow();
      const row = (action: string, at: string, subject: [string, string], values: { before?: object; after?: object }, userId = t.company.userId) => ({
        organization_id: t.company.organizationId,
        id: newId('aud'),
        company_id: t.company.companyId,
        user_id: userId,
        at: new Date(at),
        action,
        subject_type: subject[0],
        subject_id: subject[1],
        before: values.before ? JSON.stringify(values.before) : null,
        after: values.after ? JSON.stringify(values.after) : null,
      });
      const n = invoice.number;
      await t.handle.db
        .insertInto('audit_log')
        .values([
          ...Array.from({ length: 55 }, (_, i) =>
            row('period.locked', `2026-11-01T08:${String(i).padStart(2, '0')}:00Z`, ['company', t.company.companyId], {
              before: { locked_until: null },
              after: { locked_until: '2026-10-31' },
            }),
          ),
          row('invoice.issued', '2026-11-10T09:00:00Z', ['invoice', invoice.id], {
            before: { status: 'draft' },
            after: { status: 'issued', number: n, confirmed_warnings: [LONG, LONG] },
          }),
          row('payment.assigned', '2026-11-12T09:00:00Z', ['invoice', invoice.id], {
            before: { invoice: n, paid: '0.00' },
            after: { invoice: n, paid: '40.00', booking_date: '2026-11-12' },
          }),
          row(
            'dunning.stop_set',
            '2026-11-15T09:00:00Z',
            ['customer', customer.id],
            { after: { reason: 'Klärung läuft; Rückruf "Montag"', customer: 'Beispiel AG' } },
            member.userId,
          ),
        ])
        .execute();
    });

    test('subjects by name with a link, the changes as a list, long values folded', async () => {
      const page = await web.get('/app/audit?area=invoices');
      assert.equal(page.status, 200);
      assert.deepEqual(
        rows(page.body).map((r) => r.slice(1, 4)),
        [[t.company.adminEmail, `Rechnung ${invoice.number} ausgestellt von ${t.company.adminEmail} | Rechnungen`, invoice.number]],
      );
      assert.match(page.body, new RegExp(`<td><a href="/app/invoices/${invoice.id}">${esc(invoice.number)}</a></td>`));
      assert.match(
        page.body,
        /<details><summary>3 Werte<\/summary><ul class="diff"><li><span class="diff-key">status:<\/span> <del>draft<\/del> → <ins>issued<\/ins><\/li>/,
      );
      assert.doesNotMatch(page.body, />inv_[0-9a-z]{26}</, 'no raw id as text');
      const stop = await web.get('/app/audit?area=dunning');
      assert.deepEqual(
        rows(stop.body).map((r) => r.slice(1, 4)),
        [
          [
            member.email,
            `Mahnsperre für Beispiel AG gesetzt von ${member.email} (Grund: Klärung läuft; Rückruf &quot;Montag&quot;) | Mahnwesen`,
            'Beispiel AG',
          ],
        ],
      );
      assert.match(stop.body, /<td><a href="\/app\/customers\/[a-z]+_[0-9a-z]+">Beispiel AG<\/a><\/td>/);
      assert.match(stop.body, /<li><span class="diff-key">reason:<\/span> <span class="muted">neu<\/span> → <ins>/);
    });

    test('filters by person and by dates (German or ISO, days in the company time zone); a bad date is refused', async () => {
      const mine = await web.get(`/app/audit?person=${member.userId}`);
      assert.deepEqual(
        rows(mine.body).map((r) => r[2]),
        [
          `Mahnsperre für Beispiel AG gesetzt von ${member.email} (Grund: Klärung läuft; Rückruf &quot;Montag&quot;) | Mahnwesen`,
          `Passwort von ${member.email} geändert | Personen und Schlüssel`,
        ],
      );
      assert.match(mine.body, new RegExp(`<option value="${member.userId}" selected>${esc(member.email)}</option>`));
      const days = await web.get('/app/audit?from=12.11.2026&to=2026-11-15');
      assert.deepEqual(
        rows(days.body).map((r) => r[0]),
        ['15.11.2026, 10:00:00', '12.11.2026, 10:00:00'],
      );
      const none = await web.get('/app/audit?from=2027-01-01');
      assert.match(none.body, /Keine Einträge für diese Auswahl\./);
      for (const bad of ['2026-02-30', '31.02.2026', 'gestern']) {
        const refused = await web.get(`/app/audit?from=${encodeURIComponent(bad)}`);
        assert.equal(refused.status, 400, bad);
        assert.match(refused.body, /Bitte geben Sie ein gültiges Datum ein \(TT\.MM\.JJJJ\)\./);
      }
    });

    test('paging by key keeps the filter and shows every entry once', async () => {
      const first = await web.get('/app/audit?area=settings');
      const next = /<a href="([^"]+)" rel="next">/.exec(first.body)?.[1]?.replace(/&amp;/g, '&') ?? '';
      assert.match(next, /^\/app\/audit\?area=settings&before=\d+$/);
      const second = await web.get(next);
      const all = [...rows(first.body), ...rows(second.body)];
      assert.equal(all.length, 55);
      assert.ok(all.every((r) => r[2] === `Buchungszeitraum bis 2026-10-31 gesperrt von ${t.company.adminEmail} | Einstellungen`));
      assert.doesNotMatch(second.body, /rel="next"/);
    });

    test('the CSV of the current filter: BOM, semicolons, decimal comma, German dates, quoted where needed', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/app/audit.csv?area=bank',
        headers: { host: 'kontor.test', cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.match(String(res.headers['content-disposition']), /attachment; filename="protokoll\.csv"/);
      const n = invoice.number;
      assert.equal(
        res.body,
        `\uFEFFDatum;Uhrzeit;Person;Bereich;Aktion;Gegenstand;Vorher;Nachher\r\n12.11.2026;10:00:00;${t.company.adminEmail};Bank;Zahlung der Rechnung ${n} von Hand zugeordnet von ${t.company.adminEmail};${n};"paid: 0,00; invoice: ${n}";"paid: 40,00; invoice: ${n}; booking_date: 12.11.2026"\r\n`,
      );
      const dunning = await t.app.inject({
        method: 'GET',
        url: '/app/audit.csv?area=dunning',
        headers: { host: 'kontor.test', cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      assert.match(dunning.body, /;"reason: Klärung läuft; Rückruf ""Montag""; customer: Beispiel AG"\r\n$/);
      // (jsonb keeps keys shortest first.) Without a session there is no export.
      const anonymous = await t.app.inject({ method: 'GET', url: '/app/audit.csv', headers: { host: 'kontor.test' } });
      assert.equal(anonymous.statusCode, 303);
    });
  });
});
