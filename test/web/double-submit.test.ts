import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import { postEvent, putAgreement, putPartner, SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, type TestSmtpServer } from '../mail/fixtures.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 25 §3: every state-changing form of the app does its step once — sent twice in a row
// (a double click, the browser's reload of the POST) or at the same time from two "tabs" (the
// same session with the same page's form token), there is one effect: one audit row, one
// key, one mail. The second answer leads where the first one did. And the statement page
// offers only the mail steps its state allows: no "Versenden" while the mail is queued.

type Field = [string, string];

/** The fields a browser sends for the first form on the page whose action matches (hidden and typed values, ticked boxes, chosen options). */
function formFields(body: string, action: string | RegExp): Field[] {
  return findForm(body, action).fields;
}

function findForm(body: string, action: string | RegExp): { action: string; fields: Field[] } {
  const forms = [...body.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => {
    const found = /action="([^"]*)"/.exec(f[1] as string)?.[1] ?? '';
    return typeof action === 'string' ? found === action : action.test(found);
  });
  assert.ok(form, `no form with action ${action}`);
  const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  const unescapeHtml = (v: string) =>
    v
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const fields: Field[] = [];
  const inner = form[2] as string;
  for (const [tag] of inner.matchAll(/<input\b[^>]*>/g)) {
    const name = attr(tag, 'name');
    const type = attr(tag, 'type') ?? 'text';
    if (!name || tag.includes(' disabled')) continue;
    if ((type === 'checkbox' || type === 'radio') && !/\schecked\b/.test(tag)) continue;
    fields.push([name, unescapeHtml(attr(tag, 'value') ?? (type === 'checkbox' ? 'on' : ''))]);
  }
  for (const [, open, options] of inner.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = attr(open as string, 'name');
    if (!name || (open as string).includes(' disabled')) continue;
    const chosen = /<option value="([^"]*)"[^>]*\sselected/.exec(options as string) ?? /<option value="([^"]*)"/.exec(options as string);
    fields.push([name, unescapeHtml(chosen?.[1] ?? '')]);
  }
  for (const [, open, text] of inner.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    const name = attr(open as string, 'name');
    if (name) fields.push([name, unescapeHtml(text as string)]);
  }
  return { action: /action="([^"]*)"/.exec(form[1] as string)?.[1] as string, fields };
}

/** Replaces (or adds) fields by name. */
function withFields(fields: Field[], changes: Record<string, string | string[]>): Field[] {
  const kept = fields.filter(([name]) => !(name in changes));
  for (const [name, value] of Object.entries(changes)) for (const v of Array.isArray(value) ? value : [value]) kept.push([name, v]);
  return kept;
}

describe('every form does its step once (issue 25)', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let web: WebClient;
  const partners: Record<string, string> = {};
  let invoiceId: string;
  const mails = async () => smtp.received.length;

  /** A form POST as the browser sends it, with this client's cookies. */
  const send = async (client: WebClient, url: string, fields: Field[]) => {
    const res = await t.app.inject({
      method: 'POST',
      url,
      remoteAddress: '198.51.100.7',
      headers: {
        host: 'kontor.test',
        origin: 'http://kontor.test',
        cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams(fields).toString(),
    });
    return { status: res.statusCode, location: res.headers.location as string | undefined, body: res.body };
  };
  const audits = async () =>
    Number(
      (
        await t.handle.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const count = async (table: 'api_keys' | 'webhook_endpoints' | 'users' | 'payout_runs') =>
    Number(
      (
        await t.handle.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const statementOf = (ref: string) =>
    t.handle.db
      .selectFrom('commission_statements')
      .selectAll()
      .where('partner_id', '=', partners[ref] as string)
      .where('type', '=', 'statement')
      .executeTakeFirstOrThrow();
  const person = (email: string) => t.handle.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();

  before(async () => {
    t = await testApp({ now: '2026-10-20T10:00:00Z' });
    smtp = await startSmtpServer();
    await t.handle.db
      .updateTable('companies')
      .set({
        statements_need_review: true,
        iban: 'DE89370400440532013000',
        bic: 'COBADEFFXXX',
        smtp: JSON.stringify({
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          user: SMTP_USER,
          password_sealed: sealer.seal(SMTP_PASSWORD),
          from: SMTP_USER,
        }),
      })
      .where('id', '=', t.company.companyId)
      .execute();
    // Three partners with October revenue: "queued" gets its mail on issue; "later" has no
    // e-mail when issued (the address comes after, so "Versenden" is offered); "pay" is paid out.
    for (const ref of ['queued', 'later', 'pay']) {
      partners[ref] = await putPartner(t, ref, { ...SELF_BILLING_PARTNER, name: `Partner ${ref}`, email: ref === 'queued' ? 'queued@partner.example' : null });
      await putAgreement(t, `${ref}-ag`, {
        partner_ref: ref,
        start_date: '2026-01-01',
        applies_to: 'all_customers',
        tiers: [{ from_month: 1, to_month: null, percent: 10 }],
      });
    }
    await postEvent(t, { external_ref: 'umsatz-oktober', occurred_at: '2026-10-10T10:00:00Z', net_amount: '500.00' });
    t.clock.set('2026-11-01T12:00:00Z');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2026-11-01', companyId: t.company.companyId, log: () => {} },
    );
    t.clock.set('2026-11-21T10:00:00Z');
    // A draft invoice (the API without "issue"), issued, sent, sent again and cancelled in the app.
    await putCustomer(t, 'kunde-1');
    const draft = await postInvoice(t, invoiceBody('doppelt-1'));
    assert.ok(draft.statusCode < 300, draft.body);
    invoiceId = draft.json().id;
    web = await signedIn(t);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  /**
   * One row per state-changing form: the page it is on, its action, what to type, and what
   * one effect is. Each is sent twice with the same form (its one-time token): one effect.
   */
  type Row = {
    name: string;
    page: () => Promise<string>;
    action: string | RegExp | (() => Promise<string>);
    fields?: Record<string, string | string[]>;
    effect: () => Promise<number>;
  };
  const rows: Row[] = [
    {
      name: 'create an API key',
      page: async () => '/app/api-keys',
      action: '/app/api-keys',
      fields: { scope: 'partner:invoices:read' },
      effect: () => count('api_keys'),
    },
    { name: 'revoke an API key', page: async () => '/app/api-keys', action: /^\/app\/api-keys\/key_[0-9a-z]+\/revoke$/, effect: audits },
    {
      name: 'add a webhook endpoint',
      page: async () => '/app/webhooks',
      action: '/app/webhooks',
      fields: { url: 'https://hooks.example.com/kontor' },
      effect: () => count('webhook_endpoints'),
    },
    { name: 'remove a webhook endpoint', page: async () => '/app/webhooks', action: /^\/app\/webhooks\/whe_[0-9a-z]+\/remove$/, effect: audits },
    {
      name: 'invite a person',
      page: async () => '/app/users',
      action: '/app/users/invite',
      fields: { email: 'neue.kollegin@example.com' },
      effect: () => count('users'),
    },
    {
      name: "change a person's role",
      page: async () => '/app/users',
      action: async () => `/app/users/${(await person('neue.kollegin@example.com')).id}/role`,
      fields: { role: 'admin' },
      effect: audits,
    },
    {
      name: 'deactivate a person',
      page: async () => '/app/users',
      action: async () => `/app/users/${(await person('neue.kollegin@example.com')).id}/active`,
      effect: audits,
    },
    {
      name: 'save a settings section',
      page: async () => '/app/settings',
      action: '/app/settings/letterhead',
      fields: { register_court: 'Amtsgericht Charlottenburg' },
      effect: audits,
    },
    {
      name: 'lock a period',
      page: async () => '/app/settings/period-locks',
      action: '/app/settings/period-locks',
      fields: { until: '2026-09-30' },
      effect: audits,
    },
    { name: 'export to DATEV', page: async () => '/app/exports', action: '/app/exports', fields: { from: '2026-10-01', to: '2026-10-31' }, effect: audits },
    {
      name: "set a partner's payout account",
      page: async () => `/app/partners/${partners.pay}`,
      action: async () => `/app/partners/${partners.pay}/payout-account`,
      fields: { iban: 'DE02 1203 0000 0000 2020 51' },
      effect: audits,
    },
    {
      name: 'issue a statement',
      page: async () => `/app/statements/${(await statementOf('pay')).id}`,
      action: /\/issue$/,
      effect: audits,
    },
    { name: 'issue a draft invoice', page: async () => `/app/invoices/${invoiceId}`, action: /\/issue$/, effect: audits },
    { name: 'send an invoice by mail', page: async () => `/app/invoices/${invoiceId}`, action: /\/send$/, effect: mails },
    { name: 'send an invoice again', page: async () => `/app/invoices/${invoiceId}`, action: /\/send$/, effect: mails },
    { name: 'cancel an invoice', page: async () => `/app/invoices/${invoiceId}`, action: /\/cancel$/, effect: audits },
    {
      name: 'carry out a payout run (the confirmation)',
      page: async () => '/app/payouts',
      action: '/app/payouts',
      effect: () => count('payout_runs'),
    },
  ];

  test('each form sent twice in a row (double click, reload of the POST): one effect; the second answer leads where the first did', async () => {
    for (const row of rows) {
      const url = await row.page();
      const page = await web.get(url);
      assert.equal(page.status, 200, `${row.name}: ${url}`);
      let body = page.body;
      let action = typeof row.action === 'function' ? await row.action() : row.action;
      if (row.name.startsWith('carry out a payout run')) {
        // Nothing is ticked: the admin ticks the statement, reviews, then confirms.
        const { id } = await statementOf('pay');
        assert.doesNotMatch(body, /\schecked/);
        const reviewed = await send(
          web,
          '/app/payouts/review',
          withFields(formFields(body, '/app/payouts/review'), { statement: id, execution_date: '2026-11-23' }),
        );
        assert.equal(reviewed.status, 200, reviewed.body);
        body = reviewed.body;
        action = '/app/payouts';
      }
      const form = findForm(body, action);
      const fields = withFields(form.fields, row.fields ?? {});
      const target = form.action;
      const before = await row.effect();
      const first = await send(web, target, fields);
      assert.ok(first.status < 400, `${row.name}: first answer ${first.status} ${first.body.slice(0, 600)}`);
      const second = await send(web, target, fields);
      assert.equal((await row.effect()) - before, 1, `${row.name}: one effect`);
      if (first.status === 303) {
        assert.equal(second.status, 303, `${row.name}: the second is redirected`);
        assert.equal(second.location, first.location, `${row.name}: to where the first led`);
      } else {
        assert.equal(second.status, 409, `${row.name}: ${second.status}`);
        assert.match(second.body, /Bereits erledigt/);
        assert.match(second.body, /nicht ein zweites Mal/);
      }
    }
  });

  test('two tabs sending the same form at the same time: one key, one answer each, no error', async () => {
    const page = await web.get('/app/api-keys');
    const fields = withFields(formFields(page.body, '/app/api-keys'), { scope: ['partner:invoices:read', 'partner:customers:write'] });
    const before = await count('api_keys');
    const answers = await Promise.all([send(web, '/app/api-keys', fields), send(web, '/app/api-keys', fields)]);
    assert.equal((await count('api_keys')) - before, 1);
    assert.deepEqual(
      answers.map((a) => a.status),
      [303, 303],
    );
    assert.equal(answers[0]?.location, answers[1]?.location);
    // A new page (a new token) is a new intention: a second key.
    const again = await web.get('/app/api-keys');
    assert.equal((await send(web, '/app/api-keys', withFields(formFields(again.body, '/app/api-keys'), { scope: 'partner:invoices:read' }))).status, 303);
    assert.equal((await count('api_keys')) - before, 2);
  });

  test('a refused form can be corrected and sent again; a forged form without a token still works once per state', async () => {
    const page = await web.get('/app/webhooks');
    const fields = formFields(page.body, '/app/webhooks');
    const refused = await send(web, '/app/webhooks', withFields(fields, { url: '' }));
    assert.equal(refused.status, 422);
    // The same token again after the refusal: the step runs (the refusal released it).
    const before = await count('webhook_endpoints');
    const added = await send(web, '/app/webhooks', withFields(fields, { url: 'https://hooks.example.com/second' }));
    assert.equal(added.status, 303);
    assert.equal((await count('webhook_endpoints')) - before, 1);
  });

  test('a statement whose mail is queued on issue offers no "Versenden", refuses a send, and is mailed once', async () => {
    const { id } = await statementOf('queued');
    const toPartner = () => smtp.received.filter((m) => m.envelopeTo.includes('queued@partner.example')).length;
    const draft = await web.get(`/app/statements/${id}`);
    const issue = formFields(draft.body, `/app/statements/${id}/issue`);
    // Double click on "Ausstellen".
    const [a, b] = await Promise.all([send(web, `/app/statements/${id}/issue`, issue), send(web, `/app/statements/${id}/issue`, issue)]);
    assert.deepEqual([a.status, b.status], [303, 303]);
    const issued = await web.get(a.location as string);
    assert.match(issued.body, /Die Abrechnung wurde als GS-2026-\d+ ausgestellt/);
    assert.match(issued.body, /Der Versand per E-Mail an queued@partner\.example ist beauftragt und läuft im Hintergrund/);
    assert.doesNotMatch(issued.body, new RegExp(`action="/app/statements/${id}/send"`));
    // A forged (or old tab's) send while the mail is queued is refused in German; nothing is mailed.
    const forged = await send(web, `/app/statements/${id}/send`, [['_csrf', /name="_csrf" value="([^"]+)"/.exec(issued.body)?.[1] as string]]);
    assert.equal(forged.status, 409);
    assert.match(forged.body, /wird bereits per E-Mail versendet; sie wurde nicht ein zweites Mal gesendet/);
    assert.equal(toPartner(), 0);
    // The queued mail goes out once; the page then offers no sending at all.
    const { createMailer } = await import('../../src/modules/mail/index.ts');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, mailer: createMailer({ dataDir: t.dataDir, sealer }), services: { invoicing: t.invoicing } },
      { asOf: '2026-11-21', companyId: t.company.companyId, log: () => {} },
    );
    assert.equal(toPartner(), 1);
    assert.equal((await statementOf('queued')).status, 'sent');
    const sent = await web.get(`/app/statements/${id}`);
    assert.doesNotMatch(sent.body, /\/send"/);
    assert.equal(toPartner(), 1);
  });

  test('"Versenden" sent twice (double click and a second tab with the same page) mails the statement once', async () => {
    const { id } = await statementOf('later');
    let page = await web.get(`/app/statements/${id}`);
    assert.equal((await send(web, `/app/statements/${id}/issue`, formFields(page.body, `/app/statements/${id}/issue`))).status, 303);
    // The address arrives after issuing: nothing was queued, so "Versenden" is offered.
    await t.handle.db
      .updateTable('commission_partners')
      .set({ email: 'later@partner.example' })
      .where('id', '=', partners.later as string)
      .execute();
    page = await web.get(`/app/statements/${id}`);
    assert.match(page.body, /Versenden<\/button>/);
    const fields = formFields(page.body, `/app/statements/${id}/send`);
    const mailsBefore = smtp.received.length;
    const [a, b] = await Promise.all([send(web, `/app/statements/${id}/send`, fields), send(web, `/app/statements/${id}/send`, fields)]);
    const c = await send(web, `/app/statements/${id}/send`, fields);
    assert.deepEqual([a.status, b.status, c.status], [303, 303, 303]);
    assert.equal(a.location, `/app/statements/${id}?done=sent`);
    assert.equal(smtp.received.length - mailsBefore, 1);
    const trail = await t.handle.db.selectFrom('audit_log').select('action').where('subject_id', '=', id).where('action', '=', 'statement.sent').execute();
    assert.equal(trail.length, 1);
    const after = await web.get(`/app/statements/${id}`);
    assert.doesNotMatch(after.body, /Versenden<\/button>/);
  });
});
