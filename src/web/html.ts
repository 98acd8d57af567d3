// HTML of the back-office app is built by the `html` tagged template: every interpolated
// value is escaped unless it is itself `Html` (made by `html` or, for markup we wrote,
// `trusted`). Text from the database — names, addresses, descriptions — can therefore only
// ever show as text (design: XSS by construction, not by remembering to escape).

export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | bigint | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] as string);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) out += render(values[i] as Part) + (strings[i + 1] as string);
  return new Html(out);
}

/** Markup written in this code base (never data): passed through as it is. */
export function trusted(markup: string): Html {
  return new Html(markup);
}

/** Joins fragments (a list of rows, say). */
export function join(parts: readonly Html[], separator = ''): Html {
  return new Html(parts.map((p) => p.value).join(separator));
}
