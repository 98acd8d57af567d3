// `node scripts/einvoice-rules.ts --rules DIR [--out DIR] [FILE.xml ...]`: checks CII files
// against the official Schematron rules: EN 16931 (ConnectingEurope/eInvoicing-EN16931,
// cii/schematron/preprocessed/EN16931-CII-validation-preprocessed.sch) and XRechnung
// (itplr-kosit/xrechnung-schematron, src/validation/schematron/cii/XRechnung-CII-validation.sch
// with ../common.sch). The rule files are not part of Kontor: put them in DIR as
// DIR/EN16931-CII-validation-preprocessed.sch, DIR/cii/XRechnung-CII-validation.sch and
// DIR/common.sch. Without FILE arguments it renders every renderer test fixture (both
// flavours) and checks those (written to --out, default a temporary folder).
// Runs the rules with node-schematron (XPath 3.1 by fontoxpath), not the KoSIT validator
// (XSLT 2 by Saxon); three adaptations keep the rules' meaning under that engine:
// - a rule's <let> holding nodes is written into its asserts (the engine would turn a
//   sequence into an array);
// - the included common.sch declares its variables at pattern level, used by the other
//   patterns (global in the XSLT implementation): they become schema-level variables;
// - the IBAN checks' mod 97 of a 30-digit number runs on BigInt (JavaScript numbers are
//   too small for xs:integer there).
// Exit code 1 when any file breaks a fatal rule. Slow (seconds to minutes per file).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { registerCustomXPathFunction, Schema } from 'node-schematron';

const { values, positionals } = parseArgs({ options: { rules: { type: 'string' }, out: { type: 'string' } }, allowPositionals: true });
if (!values.rules) throw new Error('--rules DIR is required (see the comment at the top of this script)');
const rulesDir = values.rules;

registerCustomXPathFunction({ localName: 'mod97', namespaceURI: 'urn:kontor:rules' }, ['xs:string?'], 'xs:integer', (_: unknown, digits: string | null) =>
  Number(BigInt(digits || '0') % 97n),
);

const LET = /<let name="([^"]+)" value="([^"]*)"\s*\/>/;

/** Rule-level variables written into the rule's later variables and asserts. */
function inlineRuleVariables(text: string): string {
  return text.replace(/<rule\b[\s\S]*?<\/rule>/g, (rule) => {
    let body = rule;
    for (let m = LET.exec(body); m; m = LET.exec(body)) {
      const [whole, name, value] = m as unknown as [string, string, string];
      body = body.replace(whole, '').replace(new RegExp(`\\$${name.replace(/[-.]/g, '\\$&')}(?![\\w.-])`, 'g'), () => `(${value})`);
    }
    return body;
  });
}

function bigIntIban(text: string): string {
  return text
    .replace(/xs:(?:integer|decimal)\(string-join\(for \$cp/g, () => 'kx:mod97(string-join(for $cp')
    .replace(/'\)\) mod 97 = 1/g, () => "')) = 1")
    .replace(/<ns [^>]*\/>/, (ns) => `${ns}\n  <ns prefix="kx" uri="urn:kontor:rules"/>`);
}

async function load(file: string, adapt: (text: string) => string) {
  const text = adapt(readFileSync(file, 'utf8'));
  const flags = new Map<string, string>();
  for (const m of text.matchAll(/<(?:assert|report)\b[^>]*>/g)) {
    const id = /\bid="([^"]+)"/.exec(m[0])?.[1];
    if (id) flags.set(id, /\bflag="([^"]+)"/.exec(m[0])?.[1] ?? 'fatal');
  }
  return { schema: await Schema.fromString(text, { fetchReference: () => '' }), flags };
}

const en16931 = await load(path.join(rulesDir, 'EN16931-CII-validation-preprocessed.sch'), (t) => t);
const common = readFileSync(path.join(rulesDir, 'common.sch'), 'utf8');
const xrechnung = await load(path.join(rulesDir, 'cii', 'XRechnung-CII-validation.sch'), (t) =>
  bigIntIban(inlineRuleVariables(t))
    .replace(/<active pattern="variable-pattern"\s*\/>/, '')
    .replace(/<include href="\.\.\/common\.sch"\s*\/>/, () => (common.match(/<let\b[^>]*\/>/g) ?? []).join('\n')),
);

let files = positionals;
if (files.length === 0) {
  const out = values.out ?? mkdtempSync(path.join(tmpdir(), 'kontor-einvoice-'));
  mkdirSync(out, { recursive: true });
  const { renderFacturXml, renderXRechnungCii } = await import('../src/modules/invoicing/render/index.ts');
  const { allFixtures } = await import('../test/invoicing/render/fixtures.ts');
  for (const [name, doc] of Object.entries(allFixtures)) {
    writeFileSync(path.join(out, `${name}-facturx.xml`), await renderFacturXml(doc));
    writeFileSync(path.join(out, `${name}-xrechnung.xml`), await renderXRechnungCii(doc));
  }
  files = Object.keys(allFixtures).flatMap((name) => [`${name}-facturx.xml`, `${name}-xrechnung.xml`].map((f) => path.join(out, f)));
}

let failed = 0;
for (const file of files) {
  const xml = readFileSync(file, 'utf8');
  const sets = xml.includes('urn:xeinkauf.de:kosit:xrechnung') ? { en16931, xrechnung } : { en16931 };
  for (const [name, { schema, flags }] of Object.entries(sets)) {
    const results = schema.validateString(xml);
    // Only `fatal` (or an assertion without a flag) fails a file; `warning` and `information` (e.g. BR-DE-TMP-32) do not.
    const fatal = results.filter((r: { assertId: string | null }) => !['warning', 'information'].includes(flags.get(r.assertId ?? '') ?? 'fatal'));
    console.log(`${path.basename(file)} ${name}: ${fatal.length} fatal, ${results.length - fatal.length} warning(s) or information`);
    for (const r of results) console.log(`  [${flags.get(r.assertId ?? '') ?? '?'}] ${String(r.message).replace(/\s+/g, ' ').trim()}`);
    if (fatal.length > 0) failed++;
  }
}
process.exitCode = failed > 0 ? 1 : 0;
