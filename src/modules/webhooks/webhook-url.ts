import { AdminError } from '../access/admin-error.ts';

// What a webhook URL must be: absolute http(s) with a host, no credentials (they would
// be stored and shown in plain text; the signature authenticates us to the receiver),
// no fragment, at most 2048 characters. Private and loopback hosts are allowed: the
// admin sets the URL, and receivers on the same network are a normal setup.

export type WebhookUrlProblem = 'too_long' | 'not_url' | 'scheme' | 'no_host' | 'credentials' | 'fragment';

/** A refused URL: `problem` for the app (German text), the message for the command line. */
export class WebhookUrlError extends AdminError {
  readonly problem: WebhookUrlProblem;
  constructor(problem: WebhookUrlProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

export function checkWebhookUrl(input: string): string {
  const text = input.trim();
  if (text.length > 2048) throw new WebhookUrlError('too_long', 'the webhook URL is longer than 2048 characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlError('not_url', `the webhook URL is not a URL: ${JSON.stringify(text.slice(0, 100))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WebhookUrlError('scheme', `the webhook URL must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (!url.hostname) throw new WebhookUrlError('no_host', 'the webhook URL has no host');
  if (url.username || url.password) throw new WebhookUrlError('credentials', 'the webhook URL must not contain a user name or password');
  if (url.hash) throw new WebhookUrlError('fragment', 'the webhook URL must not contain a fragment (#…)');
  return url.toString();
}
