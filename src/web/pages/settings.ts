import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CompanyFileError, type CompanyFileProblem } from '../../modules/access/company-file.ts';
import { type CompanySettings, nextNumbers, readCompanySettings } from '../../modules/access/company-settings.ts';
import { sendTestMail, TestMailRefused } from '../../modules/access/send-test-mail.ts';
import { updateCompany } from '../../modules/access/update-company.ts';
import { DEFAULT_POLICY } from '../../modules/dunning/policy.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { registerPeriodLockPages } from './period-locks.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Company settings (issuing details, number patterns, letterhead, DATEV, flags, dunning
// policy), the mailbox with a test mail, accounting period locks (period-locks.ts). Admins
// only. Each section is a form of its own that sends only its keys of the company file, so
// saving one never touches another; the same checks as `kontor admin company update`
// (update-company.ts), refusals shown at the fields with the typed values kept, and one
// audit row per save with the values that changed.

const SECTION_IDS = ['issuing', 'numbers', 'letterhead', 'books', 'flags', 'dunning', 'mailbox'] as const;
type SectionId = (typeof SECTION_IDS)[number];
const isSection = (value: string): value is SectionId => (SECTION_IDS as readonly string[]).includes(value);

type FieldKind = 'text' | 'email' | 'number' | 'checkbox' | 'textarea' | 'select' | 'password';
type FieldSpec = { name: string; kind: FieldKind; autocomplete?: string; options?: (t: Messages) => [string, string][]; mono?: boolean };

const text = (name: string, autocomplete = 'off', mono = false): FieldSpec => ({ name, kind: 'text', autocomplete, mono });
const check = (name: string): FieldSpec => ({ name, kind: 'checkbox' });
const number = (name: string): FieldSpec => ({ name, kind: 'number' });

const FIELDS: Record<SectionId, FieldSpec[]> = {
  issuing: [
    text('name', 'organization'),
    text('legal_form'),
    text('street', 'address-line1'),
    text('house_number'),
    text('zip', 'postal-code'),
    text('city', 'address-level2'),
    text('country_code', 'country', true),
    text('vat_id', 'off', true),
    text('tax_number', 'off', true),
    { name: 'email', kind: 'email', autocomplete: 'email' },
    text('phone', 'tel'),
    text('contact_name', 'name'),
    text('iban', 'off', true),
    text('bic', 'off', true),
    text('bank_name'),
    text('account_holder'),
    check('small_business'),
    number('payment_terms_days'),
  ],
  numbers: [text('invoice_number_pattern', 'off', true), text('contract_number_pattern', 'off', true)],
  letterhead: [text('register_court'), text('register_number', 'off', true), { name: 'managing_directors', kind: 'textarea' }],
  books: [
    {
      name: 'chart',
      kind: 'select',
      options: () => [
        ['SKR03', 'SKR03'],
        ['SKR04', 'SKR04'],
      ],
    },
    text('datev_consultant_number', 'off', true),
    text('datev_client_number', 'off', true),
    text('fiscal_year_start', 'off', true),
    {
      name: 'vat_return_period',
      kind: 'select',
      options: (t) => [
        ['monthly', t.settings.periodMonthly],
        ['quarterly', t.settings.periodQuarterly],
        ['annual', t.settings.periodAnnual],
      ],
    },
    check('vat_return_extension'),
  ],
  flags: [check('eu_distance_sales_threshold_exceeded'), check('statements_need_review'), check('attributions_need_confirmation')],
  dunning: [
    check('dunning_enabled'),
    number('dunning_reminder_days'),
    number('dunning_interval_days'),
    {
      name: 'dunning_levels',
      kind: 'select',
      options: (t) => [
        ['2', t.settings.levels2],
        ['3', t.settings.levels3],
      ],
    },
    text('dunning_fee_1', 'off', true),
    text('dunning_fee_2', 'off', true),
    text('dunning_fee_3', 'off', true),
    check('dunning_interest'),
    check('dunning_lump_sum'),
    number('dunning_deadline_days'),
  ],
  mailbox: [
    text('smtp_host', 'off', true),
    number('smtp_port'),
    check('smtp_secure'),
    text('smtp_user', 'off', true),
    { name: 'smtp_password', kind: 'password', autocomplete: 'new-password' },
    text('smtp_from', 'off', true),
  ],
};

/** The form's values of the stored settings, as the inputs show them. */
function formValues(s: CompanySettings): Record<string, string> {
  const str = (v: string | number | null | undefined) => (v === null || v === undefined ? '' : String(v));
  const flag = (v: boolean) => (v ? '1' : '');
  const policy = s.dunning ? { ...DEFAULT_POLICY, ...s.dunning } : DEFAULT_POLICY;
  const fee = (level: number) => (policy.fees[level] === undefined ? '' : (policy.fees[level] as string).replace('.', ','));
  return {
    name: s.name,
    legal_form: str(s.legal_form),
    street: str(s.street),
    house_number: str(s.house_number),
    zip: str(s.zip),
    city: str(s.city),
    country_code: s.country_code,
    vat_id: str(s.vat_id),
    tax_number: str(s.tax_number),
    email: str(s.email),
    phone: str(s.phone),
    contact_name: str(s.contact_name),
    iban: str(s.iban),
    bic: str(s.bic),
    bank_name: str(s.bank_name),
    account_holder: str(s.account_holder),
    small_business: flag(s.small_business),
    payment_terms_days: str(s.payment_terms_days),
    invoice_number_pattern: s.invoice_number_pattern,
    contract_number_pattern: s.contract_number_pattern,
    register_court: str(s.register_court),
    register_number: str(s.register_number),
    managing_directors: s.managing_directors.join('\n'),
    chart: s.chart,
    datev_consultant_number: str(s.datev_consultant_number),
    datev_client_number: str(s.datev_client_number),
    fiscal_year_start: s.fiscal_year_start,
    vat_return_period: s.vat_return_period,
    vat_return_extension: flag(s.vat_return_extension),
    eu_distance_sales_threshold_exceeded: flag(s.eu_distance_sales_threshold_exceeded),
    statements_need_review: flag(s.statements_need_review),
    attributions_need_confirmation: flag(s.attributions_need_confirmation),
    dunning_enabled: flag(policy.enabled),
    dunning_reminder_days: str(policy.reminder_days),
    dunning_interval_days: str(policy.interval_days),
    dunning_levels: str(policy.levels),
    dunning_fee_1: fee(1),
    dunning_fee_2: fee(2),
    dunning_fee_3: fee(3),
    dunning_interest: flag(policy.interest),
    dunning_lump_sum: flag(policy.lump_sum),
    dunning_deadline_days: str(policy.deadline_days),
    smtp_host: str(s.smtp?.host),
    smtp_port: str(s.smtp?.port),
    smtp_secure: flag(s.smtp?.secure ?? false),
    smtp_user: str(s.smtp?.user),
    smtp_password: '',
    smtp_from: str(s.smtp?.from),
  };
}

/** The section's values as typed (text as sent, a checkbox '1' or ''). */
function typedValues(section: SectionId, body: Record<string, unknown>): Record<string, string> {
  const typed: Record<string, string> = {};
  for (const spec of FIELDS[section]) {
    const raw = body[spec.name];
    const value = String((Array.isArray(raw) ? raw[0] : raw) ?? '').slice(0, 4000);
    typed[spec.name] = spec.kind === 'checkbox' ? (value === '' ? '' : '1') : value;
  }
  return typed;
}

const orNull = (value: string | undefined): string | null => {
  const trimmed = (value ?? '').trim();
  return trimmed === '' ? null : trimmed;
};
/** A whole number as typed, else the text itself (the company file's check then names it). */
const whole = (value: string | undefined): number | string => {
  const trimmed = (value ?? '').trim();
  return /^[0-9]{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
};
/** A fee typed the German way ("2,5", "2,50", "3") as the company file's "2.50"; else as typed. */
const fee = (value: string | undefined): string => {
  const match = /^([0-9]{1,2})(?:[.,]([0-9]{1,2}))?$/.exec((value ?? '').trim().replace(/\s*€$/, ''));
  if (!match) return (value ?? '').trim();
  return `${Number(match[1])}.${(match[2] ?? '').padEnd(2, '0')}`;
};

/** The company-file object of one section: only its keys. */
function companyFileOf(section: SectionId, v: Record<string, string>, reset: boolean): Record<string, unknown> {
  switch (section) {
    case 'issuing':
      return {
        name: (v.name ?? '').trim(),
        legal_form: orNull(v.legal_form),
        street: orNull(v.street),
        house_number: orNull(v.house_number),
        zip: orNull(v.zip),
        city: orNull(v.city),
        country_code: (v.country_code ?? '').trim().toUpperCase(),
        vat_id: orNull(v.vat_id),
        tax_number: orNull(v.tax_number),
        email: orNull(v.email),
        phone: orNull(v.phone),
        contact_name: orNull(v.contact_name),
        iban: orNull(v.iban),
        bic: orNull(v.bic),
        bank_name: orNull(v.bank_name),
        account_holder: orNull(v.account_holder),
        small_business: v.small_business === '1',
        payment_terms_days: whole(v.payment_terms_days),
      };
    case 'numbers':
      return { invoice_number_pattern: (v.invoice_number_pattern ?? '').trim(), contract_number_pattern: (v.contract_number_pattern ?? '').trim() };
    case 'letterhead':
      return {
        register_court: orNull(v.register_court),
        register_number: orNull(v.register_number),
        managing_directors: (v.managing_directors ?? '')
          .split(/\r?\n/)
          .map((line) => line.trim())
          .filter((line) => line !== ''),
      };
    case 'books':
      return {
        chart: (v.chart ?? '').trim(),
        datev_consultant_number: orNull(v.datev_consultant_number),
        datev_client_number: orNull(v.datev_client_number),
        fiscal_year_start: (v.fiscal_year_start ?? '').trim(),
        vat_return_period: (v.vat_return_period ?? '').trim(),
        vat_return_extension: v.vat_return_extension === '1',
      };
    case 'flags':
      return {
        eu_distance_sales_threshold_exceeded: v.eu_distance_sales_threshold_exceeded === '1',
        statements_need_review: v.statements_need_review === '1',
        attributions_need_confirmation: v.attributions_need_confirmation === '1',
      };
    case 'dunning': {
      if (reset) return { dunning: null };
      const levels = whole(v.dunning_levels);
      return {
        dunning: {
          enabled: v.dunning_enabled === '1',
          reminder_days: whole(v.dunning_reminder_days),
          interval_days: whole(v.dunning_interval_days),
          levels,
          fees: ['0.00', fee(v.dunning_fee_1), fee(v.dunning_fee_2), ...(levels === 3 ? [fee(v.dunning_fee_3)] : [])],
          interest: v.dunning_interest === '1',
          lump_sum: v.dunning_lump_sum === '1',
          deadline_days: whole(v.dunning_deadline_days),
        },
      };
    }
    case 'mailbox': {
      const host = (v.smtp_host ?? '').trim();
      if (host === '') return { smtp: null };
      const port = (v.smtp_port ?? '').trim();
      const password = v.smtp_password ?? '';
      return {
        smtp: {
          host,
          ...(port === '' ? {} : { port: whole(port) }),
          secure: v.smtp_secure === '1',
          user: orNull(v.smtp_user),
          ...(password === '' ? {} : { password }),
          from: (v.smtp_from ?? '').trim(),
        },
      };
    }
  }
}

/** The form field a problem of the company file belongs to. */
function fieldOf(key: string): string {
  if (key === 'smtp') return 'smtp_host';
  if (key.startsWith('smtp.')) return `smtp_${key.slice(5)}`;
  const fee = /^dunning\.fees\.(\d)$/.exec(key);
  if (fee) return `dunning_fee_${Math.max(1, Number(fee[1]))}`;
  if (key === 'dunning.fees') return 'dunning_levels';
  if (key === 'dunning') return 'dunning_enabled';
  if (key.startsWith('dunning.')) return `dunning_${key.slice(8)}`;
  return key;
}

type View = {
  flash?: Flash;
  status?: number;
  /** The section sent, its values as typed and what was refused. */
  section?: SectionId;
  typed?: Record<string, string>;
  problems?: CompanyFileProblem[];
  testTo?: string;
};

export function registerSettingsPages(web: FastifyInstance, deps: WebDeps): void {
  const render = async (request: FastifyRequest, reply: FastifyReply, view: View = {}) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const s = t.settings;
    const settings = await readCompanySettings(deps.db, member.company.id);
    const today = deps.clock.today(member.company.timezone);
    const next = await nextNumbers(deps.db, member.company.id, today, { invoice: settings.invoice_number_pattern, contract: settings.contract_number_pattern });
    const stored = formValues(settings);
    const csrf = member.session.csrfToken;
    const errors = new Map<string, string[]>();
    for (const problem of view.problems ?? []) {
      const field = fieldOf(problem.key);
      errors.set(field, [...(errors.get(field) ?? []), request.lang === 'de' ? problem.de : problem.en]);
    }

    const field = (section: SectionId, spec: FieldSpec): Html => {
      const label = s.fields[spec.name]?.label ?? spec.name;
      const hint = s.fields[spec.name]?.hint;
      const value = (view.section === section ? view.typed?.[spec.name] : undefined) ?? stored[spec.name] ?? '';
      const id = `f-${spec.name}`;
      const fieldErrors = view.section === section ? errors.get(spec.name) : undefined;
      const describedBy = [hint ? `${id}-hint` : '', fieldErrors ? `${id}-error` : ''].filter(Boolean).join(' ');
      const aria = html`${describedBy ? html` aria-describedby="${describedBy}"` : ''}${fieldErrors ? html` aria-invalid="true"` : ''}`;
      const after = html`${hint ? html`<p id="${id}-hint" class="hint">${hint}</p>` : ''}${
        fieldErrors ? html`<p id="${id}-error" class="hint"><span class="badge error">${s.error}</span> ${fieldErrors.join(' ')}</p>` : ''
      }`;
      switch (spec.kind) {
        case 'checkbox':
          return html`<label class="check" for="${id}"><input type="checkbox" id="${id}" name="${spec.name}" value="1"${value === '1' ? html` checked` : ''}${aria}> ${label}</label>${after}`;
        case 'textarea':
          return html`<label for="${id}">${label}</label><textarea id="${id}" name="${spec.name}" rows="4" spellcheck="false"${aria}>${value}</textarea>${after}`;
        case 'select':
          return html`<label for="${id}">${label}</label><select id="${id}" name="${spec.name}"${aria}>${(spec.options?.(t) ?? []).map(
            ([optionValue, optionLabel]) => html`<option value="${optionValue}"${optionValue === value ? html` selected` : ''}>${optionLabel}</option>`,
          )}</select>${after}`;
        default: {
          const type = spec.kind === 'number' ? 'text' : spec.kind;
          const extra = spec.kind === 'number' ? html` inputmode="numeric"` : '';
          const shown = spec.kind === 'password' ? '' : value;
          return html`<label for="${id}">${label}</label><input id="${id}" name="${spec.name}" type="${type}" value="${shown}" autocomplete="${spec.autocomplete ?? 'off'}" spellcheck="false"${spec.mono ? html` class="mono"` : ''}${extra}${aria}>${after}`;
        }
      }
    };

    const problemList = (section: SectionId): Html => {
      if (view.section !== section || !view.problems?.length) return html``;
      return html`<div class="panel warn"><h3>${s.problems}</h3><ul class="messages">${view.problems.map(
        (p) => html`<li>${s.fields[fieldOf(p.key)]?.label ?? p.key}: ${request.lang === 'de' ? p.de : p.en}</li>`,
      )}</ul></div>`;
    };

    const extras: Partial<Record<SectionId, { before?: Html; after?: Html; buttons?: Html }>> = {
      numbers: {
        before: html`<p class="hint">${s.patternHelp}</p>`,
        after: html`<p>${s.nextInvoiceNumber(next.invoice)}<br>${s.nextContractNumber(next.contract)}</p>`,
      },
      dunning: {
        before: html`<p class="muted">${settings.dunning ? s.dunningOwn : s.dunningDefaults}</p>`,
        after: html`<p class="hint">${s.feesHint}</p>`,
        buttons: html`<button type="submit" name="reset" value="1">${s.resetDunning}</button>`,
      },
      mailbox: {
        before: html`<p class="muted">${settings.smtp ? (settings.smtp.password_stored ? s.passwordStored : s.noPasswordStored) : s.noMailbox}</p>`,
      },
    };

    const sectionHtml = (section: SectionId): Html => {
      const extra = extras[section] ?? {};
      return html`<section class="panel" id="${section}" aria-labelledby="${section}-heading">
<h2 id="${section}-heading">${s.sections[section]}</h2>
<p>${s.sectionIntros[section]}</p>
${problemList(section)}
<form method="post" action="/app/settings/${section}" class="form" novalidate>
${csrfField(csrf)}
${extra.before ?? ''}
${FIELDS[section].map((spec) => field(section, spec))}
${extra.after ?? ''}
<div><button type="submit" class="primary">${s.save}</button> ${extra.buttons ?? ''}</div>
</form>
${section === 'mailbox' ? testMailForm() : ''}
</section>`;
    };

    const testMailForm = (): Html => html`<h3 id="test-mail-heading">${s.testMail}</h3>
<p>${s.testMailIntro}</p>
<form method="post" action="/app/settings/mailbox/test" class="form" data-progress="${s.testMailProgress}" novalidate>
${csrfField(csrf)}
<label for="test-to">${s.testMailTo}</label>
<input id="test-to" name="to" type="email" autocomplete="email" value="${view.testTo ?? ''}" placeholder="${member.session.email}" aria-describedby="test-to-hint">
<p id="test-to-hint" class="hint">${s.testMailToHint(member.session.email)}</p>
<button type="submit">${s.testMail}</button>
</form>`;

    const body = html`<p class="lead">${s.intro}</p>
<nav aria-label="${s.contents}"><ul class="plain">
${SECTION_IDS.map((id) => html`<li><a href="#${id}">${s.sections[id]}</a></li>`)}
<li><a href="/app/settings/period-locks">${s.periodLocksLink}</a> <span class="muted">${s.periodLocksLinkHint}</span></li>
</ul></nav>
${SECTION_IDS.map(sectionHtml)}`;
    return sendPage(reply, page(shell(request, 'settings'), s.settings, body, view.flash ?? null), view.status ?? 200);
  };

  web.get('/settings', { config: { adminOnly: true } }, async (request, reply) => {
    const saved = (request.query as { saved?: string }).saved;
    return render(
      request,
      reply,
      saved && isSection(saved) ? { flash: { kind: 'ok', text: request.t.settings.saved(request.t.settings.sections[saved]) } } : {},
    );
  });

  web.post('/settings/mailbox/test', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const s = request.t.settings;
    const raw = (request.body as Record<string, unknown> | undefined)?.to;
    const to = String((Array.isArray(raw) ? raw[0] : raw) ?? '')
      .trim()
      .slice(0, 320);
    try {
      const result = await sendTestMail(deps, { ...actorOf(member), email: member.session.email }, { companyId: member.company.id, to });
      if (!result.ok) return render(request, reply, { flash: { kind: 'error', text: s.testMailFailed(result.error.message) }, status: 422, testTo: to });
      const text = result.via === 'smtp' ? s.testMailSent(result.to, result.server ?? '') : s.testMailOutbox(result.to);
      return render(request, reply, { flash: { kind: 'ok', text }, testTo: to });
    } catch (error) {
      if (error instanceof TestMailRefused)
        return render(request, reply, { flash: { kind: 'error', text: s.testMailFailed(error.message) }, status: 422, testTo: to });
      throw error;
    }
  });

  registerPeriodLockPages(web, deps);

  web.post('/settings/:section', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { section } = request.params as { section: string };
    if (!isSection(section)) return reply.callNotFound();
    const body = (request.body ?? {}) as Record<string, unknown>;
    const typed = typedValues(section, body);
    const file = companyFileOf(section, typed, body.reset === '1');
    try {
      await updateCompany(deps.db, deps.clock, deps.sealer, member.company.id, JSON.stringify(file), {
        actor: actorOf(member),
        keepSmtpPassword: section === 'mailbox',
      });
    } catch (error) {
      if (error instanceof CompanyFileError) {
        const s = request.t.settings;
        return render(request, reply, {
          flash: { kind: 'error', text: s.notSaved(s.sections[section]) },
          status: 422,
          section,
          typed: { ...typed, smtp_password: '' },
          problems: error.problems,
        });
      }
      throw error;
    }
    return redirect(reply, `/app/settings?saved=${section}#${section}`);
  });
}
