import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html.ts';
import { barePage, csrfField } from '../layout.ts';
import { type Member, sendPage } from '../web-request.ts';

/** The signed-in person's company, or a page saying they have none yet (null). */
export function memberOrNoCompanyPage(request: FastifyRequest, reply: FastifyReply): Member | null {
  if (request.member) return request.member;
  const session = request.session;
  void sendPage(
    reply,
    barePage(
      request.lang,
      request.t,
      request.t.appName,
      html`<p>${request.t.noCompany}</p>${
        session
          ? html`<form method="post" action="/app/sign-out">${csrfField(session.csrfToken)}<button type="submit">${request.t.signOut}</button></form>`
          : ''
      }`,
    ),
  );
  return null;
}
