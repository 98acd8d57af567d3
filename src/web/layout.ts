import { escapeHtml, type Html, html, trusted } from './html.ts';
import type { Lang, Messages } from './i18n.ts';
import { newFormToken } from './session/once.ts';

// The page shell of the back-office app: navigation, company switcher, person menu, main.

export type ShellContext = {
  lang: Lang;
  t: Messages;
  csrfToken: string;
  email: string;
  role: 'admin' | 'member';
  company: { id: string; name: string };
  companies: readonly { id: string; name: string }[];
  /** The navigation entry of this page. */
  section:
    | 'dashboard'
    | 'invoices'
    | 'customers'
    | 'contracts'
    | 'bank'
    | 'dunning'
    | 'partners'
    | 'statements'
    | 'attributions'
    | 'payouts'
    | 'exports'
    | 'tax'
    | 'settings'
    | 'apiKeys'
    | 'webhooks'
    | 'users'
    | 'audit'
    | 'password';
};

export type Flash = { kind: 'ok' | 'error'; text: string } | null;

function head(lang: Lang, title: string): Html {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Kontor</title>
<link rel="stylesheet" href="/app/assets/app.css">
<script src="/app/assets/app.js" defer></script>
</head>`;
}

/**
 * The session's CSRF token and, for a form that changes something, a one-time token of its
 * own (session/form-tokens.ts: the step runs once however often the form is sent).
 */
export function csrfField(token: string, once = true): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">${once ? html`<input type="hidden" name="_once" value="${newFormToken()}">` : ''}`;
}

export function flashBox(flash: Flash): Html {
  if (!flash) return html``;
  return html`<p class="flash flash-${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.text}</p>`;
}

export function page(ctx: ShellContext, title: string, body: Html, flash: Flash = null): string {
  const t = ctx.t;
  const nav = (section: ShellContext['section'], href: string, label: string) =>
    html`<li><a href="${href}"${ctx.section === section ? html` aria-current="page"` : ''}>${label}</a></li>`;
  const others = ctx.companies.filter((c) => c.id !== ctx.company.id);
  // Order in the document: the phone bar with the menu button, the navigation it opens, the
  // company and person menus, main. On a wide screen the navigation is the left column and the
  // phone bar is not shown; on a phone the navigation opens under the button (app.js), and
  // without script it stands below the content, reached by the "Menü" link (app.css).
  return html`${head(ctx.lang, title)}
<body>
<a class="skip" href="#main">${t.skipToContent}</a>
<div class="shell">
<div class="phonebar">
<p class="brand">Kontor</p>
<a class="nav-jump" href="#nav">${t.menu}</a>
<button type="button" class="nav-toggle" aria-expanded="false" aria-controls="nav">${t.menu}</button>
</div>
<nav class="sidebar" id="nav" aria-label="Kontor">
<p class="brand">Kontor</p>
<ul>
${nav('dashboard', '/app/dashboard', t.nav.dashboard)}
</ul>
<p class="nav-group">${t.nav.groupSales}</p>
<ul>
${nav('invoices', '/app/invoices', t.nav.invoices)}
${nav('customers', '/app/customers', t.nav.customers)}
${nav('contracts', '/app/contracts', t.nav.contracts)}
</ul>
<p class="nav-group">${t.nav.groupMoney}</p>
<ul>
${nav('bank', '/app/bank', t.nav.bank)}
${nav('dunning', '/app/dunning', t.nav.dunning)}
${nav('exports', '/app/exports', t.nav.exports)}
${nav('tax', '/app/tax/ustva', t.nav.tax)}
</ul>
<p class="nav-group">${t.nav.groupShare}</p>
<ul>
${nav('partners', '/app/partners', t.nav.partners)}
${nav('attributions', '/app/attributions', t.nav.attributions)}
${nav('statements', '/app/statements', t.nav.statements)}
${ctx.role === 'admin' ? nav('payouts', '/app/payouts', t.nav.payouts) : ''}
</ul>
<p class="nav-group">${t.nav.groupAdmin}</p>
<ul>
${ctx.role === 'admin' ? nav('settings', '/app/settings', t.nav.settings) : ''}
${ctx.role === 'admin' ? nav('apiKeys', '/app/api-keys', t.nav.apiKeys) : ''}
${ctx.role === 'admin' ? nav('webhooks', '/app/webhooks', t.nav.webhooks) : ''}
${ctx.role === 'admin' ? nav('users', '/app/users', t.nav.users) : ''}
${nav('audit', '/app/audit', t.nav.audit)}
</ul>
</nav>
<header class="topbar">
<div class="company">
<span class="company-name">${ctx.company.name}</span>
${
  others.length > 0
    ? html`<details class="menu"><summary>${t.switchCompany}</summary><div class="menu-items">
${others.map(
  (c) =>
    html`<form method="post" action="/app/company">${csrfField(ctx.csrfToken)}<input type="hidden" name="company_id" value="${c.id}"><button type="submit">${c.name}</button></form>`,
)}</div></details>`
    : ''
}
</div>
<details class="menu person"><summary>${ctx.email}</summary><div class="menu-items">
<a href="/app/password">${t.changePassword}</a>
<form method="post" action="/app/sign-out">${csrfField(ctx.csrfToken)}<button type="submit">${t.signOut}</button></form>
<form method="post" action="/app/sign-out-everywhere">${csrfField(ctx.csrfToken)}<button type="submit">${t.signOutEverywhere}</button></form>
</div></details>
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${flashBox(flash)}
${labelTableBoxes(body.value, title)}
</main>
<footer class="footer">${languageSwitch(ctx.lang, ctx.t)}</footer>
</div>
</body>
</html>`.value;
}

const TABLE_BOX = '<div class="table-wrap">';

/**
 * A table wider than the screen scrolls inside its box (.table-wrap); a keyboard reaches the
 * box (tabindex 0) and a screen reader names it (a region). The name is the table's own
 * (aria-labelledby, caption), else the nearest heading above it, else the page's title. Boxes
 * a page already made focusable and named (any other attribute) are left as they are; done
 * here once for every page, so that a table added to a page gets it too.
 */
export function labelTableBoxes(body: string, title: string): Html {
  const parts: string[] = [];
  let from = 0;
  for (let at = body.indexOf(TABLE_BOX); at !== -1; at = body.indexOf(TABLE_BOX, from)) {
    parts.push(body.slice(from, at), `<div class="table-wrap" role="region" tabindex="0" ${tableName(body, at, title)}>`);
    from = at + TABLE_BOX.length;
  }
  parts.push(body.slice(from));
  return trusted(parts.join(''));
}

function tableName(body: string, at: number, title: string): string {
  const table = /^\s*<table\b[^>]*>(\s*<caption\b[^>]*>([\s\S]*?)<\/caption>)?/.exec(body.slice(at + TABLE_BOX.length));
  const labelledBy = table && /\saria-labelledby="([^"]+)"/.exec(table[0]);
  if (labelledBy) return `aria-labelledby="${labelledBy[1]}"`;
  if (table?.[2]) return `aria-label="${textOf(table[2])}"`;
  const heading = [...body.slice(0, at).matchAll(/<(h[23])\b([^>]*)>([\s\S]*?)<\/\1>/g)].at(-1);
  if (!heading) return `aria-label="${escapeHtml(title)}"`;
  const id = /\sid="([^"]+)"/.exec(heading[2] ?? '');
  return id ? `aria-labelledby="${id[1]}"` : `aria-label="${textOf(heading[3] ?? '')}"`;
}

/** The text of escaped markup (tags dropped), fit for an attribute in double quotes. */
function textOf(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replaceAll('"', '&quot;');
}

function languageSwitch(lang: Lang, t: Messages): Html {
  return html`<span>${t.language}:</span> <a href="/app/lang?to=de" ${lang === 'de' ? html`aria-current="true"` : ''} lang="de">Deutsch</a> · <a href="/app/lang?to=en" ${lang === 'en' ? html`aria-current="true"` : ''} lang="en">English</a>`;
}

/** A page without the shell (sign-in, errors before sign-in). */
export function barePage(lang: Lang, t: Messages, title: string, body: Html, flash: Flash = null): string {
  return html`${head(lang, title)}
<body class="bare">
<main id="main" class="card">
<p class="brand">Kontor</p>
<h1>${title}</h1>
${flashBox(flash)}
${body}
<footer class="footer">${languageSwitch(lang, t)}</footer>
</main>
</body>
</html>`.value;
}
