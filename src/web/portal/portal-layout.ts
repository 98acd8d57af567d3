import { type Html, html } from '../html.ts';
import type { Lang } from '../i18n.ts';
import { type Flash, flashBox, labelTableBoxes } from '../layout.ts';
import type { PortalRequest } from './portal-request.ts';
import type { PortalMessages } from './texts.ts';

// The page shell of the partner portal: the app's look (its style sheet, the same phone
// menu), a navigation of the partner's own five pages, the partner and its company named at
// the top. No company switcher and nothing of the app: a partner reaches only its own.

export type PortalSection = 'overview' | 'ledger' | 'agreements' | 'statements' | 'payouts' | 'account';

function head(lang: Lang, title: string, t: PortalMessages): Html {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${t.portal}</title>
<link rel="stylesheet" href="/portal/assets/app.css">
<script src="/portal/assets/app.js" defer></script>
</head>`;
}

/** The session's CSRF token for a form of the portal. */
export function portalCsrf(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

function languageSwitch(lang: Lang, t: PortalMessages): Html {
  return html`<span>${t.language}:</span> <a href="/portal/lang?to=de" ${lang === 'de' ? html`aria-current="true"` : ''} lang="de">Deutsch</a> · <a href="/portal/lang?to=en" ${lang === 'en' ? html`aria-current="true"` : ''} lang="en">English</a>`;
}

export function portalPage(request: PortalRequest, section: PortalSection, title: string, body: Html, flash: Flash = null): string {
  const { t, lang } = request;
  const session = request.session;
  if (!session) throw new Error('a portal page without a session');
  const nav = (at: PortalSection, href: string, label: string) =>
    html`<li><a href="${href}"${section === at ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`${head(lang, title, t)}
<body>
<a class="skip" href="#main">${t.skipToContent}</a>
<div class="shell">
<div class="phonebar">
<p class="brand">${t.portal}</p>
<a class="nav-jump" href="#nav">${t.menu}</a>
<button type="button" class="nav-toggle" aria-expanded="false" aria-controls="nav">${t.menu}</button>
</div>
<nav class="sidebar" id="nav" aria-label="${t.portal}">
<p class="brand">${t.portal}</p>
<ul>
${nav('overview', '/portal/overview', t.nav.overview)}
${nav('ledger', '/portal/ledger', t.nav.ledger)}
${nav('agreements', '/portal/agreements', t.nav.agreements)}
${nav('statements', '/portal/statements', t.nav.statements)}
${nav('payouts', '/portal/payouts', t.nav.payouts)}
${nav('account', '/portal/account', t.nav.account)}
</ul>
</nav>
<header class="topbar">
<div class="company"><span class="company-name">${t.partnerOf(session.partnerName, session.companyName)}</span></div>
<details class="menu person"><summary>${session.email}</summary><div class="menu-items">
<a href="/portal/account">${t.changePassword}</a>
<form method="post" action="/portal/sign-out">${portalCsrf(session.csrfToken)}<button type="submit">${t.signOut}</button></form>
</div></details>
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${flashBox(flash)}
${labelTableBoxes(body.value, title)}
</main>
<footer class="footer">${languageSwitch(lang, t)}</footer>
</div>
</body>
</html>`.value;
}

/** A page without the shell (sign-in, the invitation, errors before sign-in). */
export function portalBarePage(request: PortalRequest, title: string, body: Html, flash: Flash = null): string {
  const { t, lang } = request;
  return html`${head(lang, title, t)}
<body class="bare">
<main id="main" class="card">
<p class="brand">Kontor · ${t.portal}</p>
<h1>${title}</h1>
${flashBox(flash)}
${body}
<footer class="footer">${languageSwitch(lang, t)}</footer>
</main>
</body>
</html>`.value;
}
