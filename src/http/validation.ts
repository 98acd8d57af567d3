import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { D, DECIMAL_PATTERN } from '../shared/decimal.ts';
import type { ValidationIssue } from '../shared/errors.ts';
import { addTextRules, TEXT_MESSAGES, withTextRules } from './text-input.ts';

// Two Ajv instances: bodies are validated strictly (no coercion, no removal of unknown
// fields, no defaults); query strings and path parameters arrive as text, so numbers
// there are coerced. `x-decimal` marks exact decimals: a decimal string (or, where the
// schema's type allows, a JSON number) with at most 6 decimals and no exponent;
// `x-decimal-maximum: '999999999.999999'` bounds such a decimal, compared exactly.

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce, removeAdditional: false, useDefaults: false, strict: false });
  addFormats(ajv);
  // Strings free of control characters, dates in 1900–9999 (text-input.ts).
  addTextRules(ajv);
  // `x-decimal: true` accepts any decimal, `x-decimal: 'nonnegative'` none below zero.
  ajv.addKeyword({
    keyword: 'x-decimal',
    errors: true,
    validate: function decimal(schema: unknown, data: unknown) {
      const self = decimal as { errors?: Partial<ErrorObject>[] };
      self.errors = [];
      if (typeof data !== 'number' && typeof data !== 'string') return true; // the type keyword reports other types
      const text = typeof data === 'number' ? (Number.isFinite(data) ? String(data) : '') : data;
      if (!DECIMAL_PATTERN.test(text)) {
        self.errors.push({ keyword: 'x-decimal', params: {} });
        return false;
      }
      if (schema === 'nonnegative' && text.startsWith('-') && !/^-0(\.0+)?$/.test(text)) {
        self.errors.push({ keyword: 'minimum', params: {} });
        return false;
      }
      return true;
    },
  });
  ajv.addKeyword({
    keyword: 'x-decimal-maximum',
    errors: true,
    validate: function decimalMaximum(schema: string, data: unknown) {
      const self = decimalMaximum as { errors?: Partial<ErrorObject>[] };
      self.errors = [];
      const text = typeof data === 'number' ? String(data) : data;
      // Only a decimal is compared; anything else is what x-decimal and type report.
      if (typeof text !== 'string' || !DECIMAL_PATTERN.test(text) || new D(text).lessThanOrEqualTo(schema)) return true;
      self.errors.push({ keyword: 'x-decimal-maximum', params: { limit: schema } });
      return false;
    },
  });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(withTextRules(schema as object));

const PLACE: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

const MESSAGES: Record<string, string> = {
  missing: 'Field required',
  extra_forbidden: 'Extra inputs are not permitted',
  type_error: 'Input has the wrong type',
  pattern: 'Input does not match the required pattern',
  too_short: 'Input is too short',
  too_long: 'Input is too long',
  less_than_minimum: 'Input is below the minimum',
  greater_than_maximum: 'Input is above the maximum',
  format: 'Input is not in the required format',
  decimal: 'Input should be a decimal with at most 6 decimal places, without exponent',
};

function issueType(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'missing';
    case 'additionalProperties':
      return 'extra_forbidden';
    case 'enum':
    case 'const':
      return 'enum';
    case 'pattern':
    case 'x-text':
      return 'pattern';
    case 'minLength':
    case 'minItems':
    case 'minProperties':
      return 'too_short';
    case 'maxLength':
    case 'maxItems':
    case 'maxProperties':
      return 'too_long';
    case 'minimum':
    case 'exclusiveMinimum':
      return 'less_than_minimum';
    case 'maximum':
    case 'exclusiveMaximum':
    case 'x-decimal-maximum':
      return 'greater_than_maximum';
    case 'format':
      return 'format';
    case 'x-decimal':
      return 'decimal';
    default:
      return 'type_error';
  }
}

/** Maps Ajv errors to {loc, type, msg} entries; the values sent are never echoed. */
export function toValidationIssues(errors: ErrorObject[], context: string): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const path = error.instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((part): string | number => (/^\d+$/.test(part) ? Number(part) : part));
    if (error.keyword === 'required') path.push(String(error.params.missingProperty));
    if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
    const type = issueType(error);
    const loc = [PLACE[context] ?? context, ...path];
    const key = `${JSON.stringify(loc)}:${type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const msg =
      type === 'enum' && Array.isArray(error.params.allowedValues)
        ? `Input should be one of: ${error.params.allowedValues.map((v: unknown) => JSON.stringify(v)).join(', ')}`
        : error.keyword === 'x-decimal-maximum'
          ? `Input should be at most ${error.params.limit}`
          : error.keyword === 'x-text'
            ? TEXT_MESSAGES[error.params.kind as keyof typeof TEXT_MESSAGES]
            : (MESSAGES[type] ?? 'Input is invalid');
    issues.push({ loc, type, msg });
  }
  return issues;
}
