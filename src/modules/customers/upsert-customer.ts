import type { Database } from '../../db/connection.ts';
import { CUSTOMER_NUMBERS, ensureNumberRange } from '../../db/number-ranges.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, type ValidationIssue, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { countryAndVatIdIssues, isValidLeitwegId, normalizeVatId } from '../../shared/tax-ids.ts';
import { type CustomerView, customerView } from './customer-view.ts';
import { findCustomerByRef, insertCustomerWithNextNumber } from './customers.repository.ts';

export type CustomerInput = {
  name: string;
  email?: string | null;
  street?: string | null;
  house_number?: string | null;
  zip?: string | null;
  city?: string | null;
  country_code?: string | null;
  vat_id?: string | null;
  customer_type?: 'business' | 'private';
  leitweg_id?: string | null;
  contact_name?: string | null;
};

type Fields = Required<{ [K in keyof CustomerInput]: Exclude<CustomerInput[K], undefined> }>;

/** PUT semantics: the record becomes what is sent; omitted optional fields are null. */
function normalize(input: CustomerInput): Fields {
  const vatId = input.vat_id ? normalizeVatId(input.vat_id) : null;
  const fields: Fields = {
    name: input.name.trim(),
    email: input.email ?? null,
    street: input.street ?? null,
    house_number: input.house_number ?? null,
    zip: input.zip ?? null,
    city: input.city ?? null,
    country_code: input.country_code ?? null,
    vat_id: vatId || null,
    customer_type: input.customer_type ?? 'business',
    leitweg_id: input.leitweg_id ?? null,
    contact_name: input.contact_name ?? null,
  };
  const issues: ValidationIssue[] = [];
  if (!fields.name) issues.push({ loc: ['body', 'name'], type: 'too_short', msg: 'Name must not be blank' });
  issues.push(...countryAndVatIdIssues(fields, 'customer'));
  if (fields.leitweg_id && !isValidLeitwegId(fields.leitweg_id)) {
    issues.push({ loc: ['body', 'leitweg_id'], type: 'pattern', msg: 'Input is not a Leitweg-ID (coarse-fine-check digits, MOD 97-10)' });
  }
  if (issues.length > 0) throw validationFailed(issues);
  return fields;
}

export type UpsertCustomerResult = { created: boolean; customer: CustomerView };

const MAX_ATTEMPTS = 5;

/**
 * Creates or updates a customer by reference. Each step is one autocommit statement
 * (a create draws its number in the same statement as its insert, and only when its insert
 * wins), so no lock is held across round trips and no number is lost; a step that loses a
 * race to a concurrent request for the same reference simply reads again and continues as
 * an update.
 */
export async function upsertCustomer(
  db: Database,
  clock: Clock,
  companyId: string,
  ref: { source: string; externalRef: string },
  input: CustomerInput,
): Promise<UpsertCustomerResult> {
  const fields = normalize(input);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const existing = await findCustomerByRef(db, companyId, ref.source, ref.externalRef);
    if (existing) {
      const unchanged = (Object.keys(fields) as (keyof Fields)[]).every((key) => existing[key] === fields[key]);
      if (unchanged) return { created: false, customer: customerView(existing) };
      const updated = await db
        .updateTable('customers')
        .set({ ...fields, updated_at: clock.now() })
        .where('company_id', '=', companyId)
        .where('id', '=', existing.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { created: false, customer: customerView(updated) };
    }
    const inserted = await insertCustomerWithNextNumber(db, CUSTOMER_NUMBERS, {
      company_id: companyId,
      id: newId('cus'),
      external_source: ref.source,
      external_ref: ref.externalRef,
      created_at: clock.now(),
      ...fields,
    });
    if (inserted) return { created: true, customer: customerView(inserted) };
    // Nothing inserted: a concurrent request created the reference (read again), or the
    // company's range is not set up yet (set it up, try again) or used up.
    if (await findCustomerByRef(db, companyId, ref.source, ref.externalRef)) continue;
    const { exhausted } = await ensureNumberRange(db, companyId, CUSTOMER_NUMBERS);
    if (exhausted) throw new AppError('customer_number_range_exhausted');
  }
  throw new AppError('conflict_retry');
}
