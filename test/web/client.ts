import type { FastifyInstance } from 'fastify';
import { invitePerson } from '../../src/modules/access/people.ts';
import type { TestApp } from '../helpers/app.ts';

// A cookie-keeping client of the app's pages over app.inject: what a browser sends (form
// posts, cookies of Path=/app), and the CSRF token read from the last page, as a form has it.

export type PageResponse = {
  status: number;
  location: string | undefined;
  body: string;
  setCookie: string[];
  headers: Record<string, string | string[] | number | undefined>;
  /** The body's bytes (a download). */
  raw: Buffer;
};

export class WebClient {
  readonly cookies = new Map<string, string>();
  lastBody = '';
  private readonly app: FastifyInstance;
  private readonly address: string;

  constructor(app: FastifyInstance, address = '198.51.100.7') {
    this.app = app;
    this.address = address;
  }

  private async send(method: 'GET' | 'POST', url: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<PageResponse> {
    const res = await this.app.inject({
      method,
      url,
      remoteAddress: this.address,
      headers: {
        host: 'kontor.test',
        ...(this.cookies.size > 0 ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    const raw = res.headers['set-cookie'];
    const setCookie = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    for (const line of setCookie) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    if (res.headers['content-type']?.toString().startsWith('text/html')) this.lastBody = res.body;
    return {
      status: res.statusCode,
      location: res.headers.location as string | undefined,
      body: res.body,
      raw: res.rawPayload,
      setCookie,
      headers: res.headers,
    };
  }

  get(url: string, headers?: Record<string, string>): Promise<PageResponse> {
    return this.send('GET', url, undefined, headers);
  }

  /** Posts a form; the CSRF token of the last page goes with it unless `_csrf` is given. */
  post(url: string, form: Record<string, string> = {}, headers?: Record<string, string>): Promise<PageResponse> {
    const csrf = /name="_csrf" value="([^"]+)"/.exec(this.lastBody)?.[1];
    return this.send('POST', url, { ...(csrf ? { _csrf: csrf } : {}), ...form }, headers);
  }

  /** Posts a form with repeated fields (checkboxes) in order, the CSRF token of the last page first; the raw answer. */
  postPairs(url: string, pairs: [string, string][]) {
    return this.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.address,
      headers: {
        host: 'kontor.test',
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams([['_csrf', /name="_csrf" value="([^"]+)"/.exec(this.lastBody)?.[1] as string], ...pairs]).toString(),
    });
  }

  async signIn(email: string, password: string): Promise<PageResponse> {
    await this.get('/app/sign-in');
    return this.post('/app/sign-in', { email, password });
  }
}

/** Signs in with the bootstrap's one-time password and sets `password` (the forced first change). */
export async function signedIn(t: TestApp, password = 'ein sicheres Passwort 1', company = t.company, address?: string): Promise<WebClient> {
  const client = new WebClient(t.app, address);
  const first = await client.signIn(company.adminEmail, company.password);
  if (first.location === '/app/password') {
    await client.get('/app/password');
    const changed = await client.post('/app/password', { current: company.password, next: password, repeat: password });
    if (changed.status !== 303) throw new Error(`password change failed: ${changed.status}`);
    company.password = password;
  } else if (first.status !== 303) throw new Error(`sign-in failed: ${first.status}`);
  return client;
}

/** A member of the test company, invited by its admin and signed in (the one-time password changed). */
export async function signedInMember(
  t: TestApp,
  email: string,
  password = 'ein Passwort für Mitglieder',
): Promise<{ client: WebClient; userId: string; email: string }> {
  const invited = await invitePerson(
    { db: t.handle.db, clock: t.clock },
    { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId },
    { email, role: 'member', companyIds: [t.company.companyId] },
  );
  const client = await signedIn(t, password, { ...t.company, adminEmail: invited.email, password: invited.oneTimePassword as string });
  return { client, userId: invited.userId, email: invited.email };
}
