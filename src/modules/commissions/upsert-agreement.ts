import type { Database } from '../../db/connection.ts';
import type { AgreementAnchor, AgreementAppliesTo, AgreementBasis, AgreementTier } from '../../db/schema-commissions.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { D, DECIMAL_PATTERN } from '../../shared/decimal.ts';
import { AppError, RetryTransaction, type ValidationIssue, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { type AgreementView, agreementView } from './agreement-view.ts';
import {
  type AgreementChangeable,
  type AgreementRow,
  findAgreementByRef,
  findAgreementProductIds,
  findProductIdsByNumber,
  insertAgreement,
  insertAgreementProducts,
  updateAgreement,
} from './agreements.repository.ts';
import { ANCHORS, APPLIES_TO, PERCENT_DECIMALS } from './agreements.schemas.ts';
import { ledgerFollowsAgreement } from './ledger/ledger-follows.ts';
import { findPartnerByRef } from './partners.repository.ts';

// upsertCommissionAgreement (interface §2/§3/§7, design §3/§6): an agreement is created
// once (201) and then keeps its terms; a PUT may change only name, end_date and
// contract_reference (200, also when nothing changes).

/** The most months a tier may reach (100 years). */
export const MAX_MONTH = 1200;

export type TierInput = { from_month: number; to_month: number | null; percent: number };

/** The body as the schema lets it through (agreements.schemas.ts); the rest is checked here. */
export type AgreementInput = {
  partner_ref: string;
  name?: string | null;
  start_date?: string | null;
  end_date?: string | null;
  accrue_from?: string | null;
  tiers?: TierInput[] | null;
  applies_to?: string | null;
  anchor?: string | null;
  product_numbers?: string[] | null;
  condition_id?: string | null;
  contract_reference?: string | null;
  basis?: AgreementBasis | null;
};

/** What the request decides, before anything is looked up. */
export type AgreementTerms = AgreementChangeable & {
  start_date: string;
  accrue_from: string | null;
  tiers: AgreementTier[];
  applies_to: AgreementAppliesTo;
  anchor: AgreementAnchor;
  basis: AgreementBasis;
  condition_id: string | null;
  /** null: every product. */
  product_numbers: string[] | null;
};

function oneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

const decimals = (text: string) => text.split('.')[1]?.length ?? 0;

/**
 * The tiers as stored, or their problems: contiguous months from 1 (each tier starts the
 * month after the previous one ends), only the last one open, each percent above 0 and at
 * most 100 with at most 4 decimals, kept as the exact decimal text of the JSON number.
 */
export function checkTiers(tiers: TierInput[]): { tiers: AgreementTier[]; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const at = (index: number, field: keyof TierInput) => ['body', 'tiers', index, field];
  tiers.forEach((tier, index) => {
    const previous = index > 0 ? tiers[index - 1] : undefined;
    const last = index === tiers.length - 1;
    if (!previous) {
      if (tier.from_month < 1) issues.push({ loc: at(index, 'from_month'), type: 'less_than_minimum', msg: 'The first tier starts at month 1' });
      if (tier.from_month > 1) {
        issues.push({ loc: at(index, 'from_month'), type: 'greater_than_maximum', msg: 'The first tier starts at month 1 (the month of the anchor)' });
      }
    } else if (previous.to_month !== null) {
      const expected = previous.to_month + 1;
      if (tier.from_month < expected) {
        issues.push({
          loc: at(index, 'from_month'),
          type: 'less_than_minimum',
          msg: `Tiers overlap: this tier should start in month ${expected}, the month after the previous tier ends`,
        });
      }
      if (tier.from_month > expected) {
        issues.push({
          loc: at(index, 'from_month'),
          type: 'greater_than_maximum',
          msg: `Tiers leave a gap: this tier should start in month ${expected}, the month after the previous tier ends`,
        });
      }
    }
    if (tier.to_month === null) {
      if (!last) issues.push({ loc: at(index, 'to_month'), type: 'missing', msg: 'Only the last tier may be open-ended (to_month null)' });
    } else if (tier.to_month < tier.from_month) {
      issues.push({ loc: at(index, 'to_month'), type: 'less_than_minimum', msg: 'A tier ends in its first month or later (to_month at least from_month)' });
    } else if (tier.to_month > MAX_MONTH) {
      issues.push({ loc: at(index, 'to_month'), type: 'greater_than_maximum', msg: `Tiers reach at most month ${MAX_MONTH}` });
    }
    if (tier.from_month > MAX_MONTH) issues.push({ loc: at(index, 'from_month'), type: 'greater_than_maximum', msg: `Tiers reach at most month ${MAX_MONTH}` });
    const text = Number.isFinite(tier.percent) ? String(tier.percent) : '';
    if (!DECIMAL_PATTERN.test(text) || decimals(text) > PERCENT_DECIMALS) {
      issues.push({
        loc: at(index, 'percent'),
        type: 'decimal',
        msg: `Input should be a percent with at most ${PERCENT_DECIMALS} decimal places, without exponent`,
      });
    } else if (new D(text).lessThanOrEqualTo(0)) {
      issues.push({ loc: at(index, 'percent'), type: 'less_than_minimum', msg: 'A percent is above 0' });
    } else if (new D(text).greaterThan(100)) {
      issues.push({ loc: at(index, 'percent'), type: 'greater_than_maximum', msg: 'A percent is at most 100' });
    }
  });
  return { tiers: tiers.map((tier) => ({ from_month: tier.from_month, to_month: tier.to_month, percent: String(tier.percent) })), issues };
}

/**
 * The agreement's fields from the body. The commission.* refusals come first, in the order
 * of design §3 (start, tiers, applies_to, anchor, date range); then the tiers'
 * validation_failed. Nothing is looked up yet.
 */
export function agreementTerms(input: AgreementInput): AgreementTerms {
  const startDate = input.start_date ?? null;
  if (startDate === null) throw new AppError('commission.start_date_missing');
  if (!input.tiers || input.tiers.length === 0) throw new AppError('commission.tiers_empty');
  const appliesTo = input.applies_to ?? 'attributed_customers';
  if (!oneOf(APPLIES_TO, appliesTo)) throw new AppError('commission.applies_to_invalid');
  const anchor = input.anchor ?? (appliesTo === 'all_customers' ? 'first_paid_revenue' : 'attribution_start');
  if (!oneOf(ANCHORS, anchor)) throw new AppError('commission.anchor_invalid');
  if (appliesTo === 'all_customers' && anchor === 'attribution_start') {
    throw new AppError('commission.anchor_invalid', {}, 'An agreement for all customers has no attribution to start from: its anchor is first_paid_revenue.');
  }
  const endDate = input.end_date ?? null;
  if (endDate !== null && endDate < startDate) throw new AppError('commission.date_range_invalid');
  const { tiers, issues } = checkTiers(input.tiers);
  if (issues.length > 0) throw validationFailed(issues);
  return {
    name: input.name?.trim() || null,
    start_date: startDate,
    end_date: endDate,
    accrue_from: input.accrue_from ?? null,
    contract_reference: input.contract_reference?.trim() || null,
    tiers,
    applies_to: appliesTo,
    anchor,
    basis: input.basis ?? 'net_paid',
    condition_id: input.condition_id ?? null,
    product_numbers: input.product_numbers ?? null,
  };
}

/** The ids of the named products, sorted; [] for every product. */
async function productScope(trx: Trx, companyId: string, productNumbers: string[] | null): Promise<string[]> {
  if (productNumbers === null) return [];
  if (productNumbers.length === 0 || new Set(productNumbers).size !== productNumbers.length) throw new AppError('commission.product_scope_invalid');
  const found = await findProductIdsByNumber(trx, companyId, productNumbers);
  const unknown = productNumbers.filter((number) => !found.has(number)).sort();
  if (unknown.length > 0) throw new AppError('commission.product_not_found', { product_numbers: unknown });
  return productNumbers.map((number) => found.get(number) as string).sort();
}

/** The frozen terms (design §6) in which the request differs from the agreement; the partner is checked before. */
function changedTerms(existing: AgreementRow, existingProductIds: string[], terms: AgreementTerms, productIds: string[]): string[] {
  const sameTiers =
    JSON.stringify(existing.tiers.map((t) => [t.from_month, t.to_month, t.percent])) ===
    JSON.stringify(terms.tiers.map((t) => [t.from_month, t.to_month, t.percent]));
  const changed: [string, boolean][] = [
    ['start_date', existing.start_date !== terms.start_date],
    ['accrue_from', existing.accrue_from !== terms.accrue_from],
    ['tiers', !sameTiers],
    ['applies_to', existing.applies_to !== terms.applies_to],
    ['anchor', existing.anchor !== terms.anchor],
    ['product_numbers', existingProductIds.join('\n') !== productIds.join('\n')],
    ['basis', existing.basis !== terms.basis],
    ['condition_id', existing.condition_id !== terms.condition_id],
  ];
  return changed.filter(([, differs]) => differs).map(([field]) => field);
}

export type UpsertAgreementResult = { created: boolean; agreement: AgreementView };

/**
 * Creates (201) or updates (200) a revenue-share agreement by reference. The refusals
 * after the body's own (agreementTerms) follow design §3 and write nothing: unknown
 * partner, another partner's agreement, an invalid or unknown product selection, a
 * condition (none exist yet), changed terms.
 */
export async function upsertCommissionAgreement(
  db: Database,
  clock: Clock,
  companyId: string,
  ref: { source: string; externalRef: string },
  input: AgreementInput,
): Promise<UpsertAgreementResult> {
  const terms = agreementTerms(input);
  return inTransaction(db, async (trx) => {
    const company = await trx.selectFrom('companies').select('timezone').where('id', '=', companyId).executeTakeFirstOrThrow();
    const today = clock.today(company.timezone);
    const partner = await findPartnerByRef(trx, companyId, ref.source, input.partner_ref);
    if (!partner) throw new AppError('commission.partner_not_found');
    const existing = await findAgreementByRef(trx, companyId, ref.source, ref.externalRef, true);
    if (existing && existing.partner_id !== partner.id) throw new AppError('commission.agreement_partner_mismatch');
    const productIds = await productScope(trx, companyId, terms.product_numbers);
    // No conditions exist in Kontor yet, so every condition_id is unknown.
    if (terms.condition_id !== null) throw new AppError('commission.condition_not_found');
    const view = (row: AgreementRow) => agreementView(row, { partnerName: partner.name, productIds, today });

    if (existing) {
      const changed = changedTerms(existing, await findAgreementProductIds(trx, companyId, existing.id), terms, productIds);
      if (changed.length > 0) {
        throw new AppError(
          'commission.agreement_terms_frozen',
          {},
          `The terms of an agreement cannot change once it exists; these differ: ${changed.join(', ')}. Make a new agreement and end this one with end_date.`,
        );
      }
      const fields: AgreementChangeable = { name: terms.name, end_date: terms.end_date, contract_reference: terms.contract_reference };
      const unchanged = (Object.keys(fields) as (keyof AgreementChangeable)[]).every((key) => existing[key] === fields[key]);
      if (unchanged) return { created: false, agreement: view(existing) };
      const updated = await updateAgreement(trx, companyId, existing.id, fields, clock.now());
      // A moved end changes what the revenue after the earlier of the two ends earns (issue 24).
      if (existing.end_date !== terms.end_date) {
        const since =
          existing.end_date === null
            ? (terms.end_date as string)
            : terms.end_date === null || existing.end_date < terms.end_date
              ? existing.end_date
              : terms.end_date;
        await ledgerFollowsAgreement(trx, companyId, existing, since, clock.now());
      }
      return { created: false, agreement: view(updated) };
    }

    const now = clock.now();
    const inserted = await insertAgreement(trx, {
      company_id: companyId,
      id: newId('cag'),
      external_source: ref.source,
      external_ref: ref.externalRef,
      partner_id: partner.id,
      name: terms.name,
      start_date: terms.start_date,
      end_date: terms.end_date,
      accrue_from: terms.accrue_from,
      contract_reference: terms.contract_reference,
      applies_to: terms.applies_to,
      anchor: terms.anchor,
      basis: terms.basis,
      condition_id: terms.condition_id,
      tiers: JSON.stringify(terms.tiers),
      created_at: now,
      updated_at: now,
    });
    // A concurrent request created this reference first: run again, now as an update.
    if (!inserted) throw new RetryTransaction();
    await insertAgreementProducts(trx, companyId, inserted.id, productIds);
    // For all customers and starting in the past: the revenue paid since earns as if it had been there (issue 24).
    if (inserted.applies_to === 'all_customers') {
      const since = inserted.accrue_from !== null && inserted.accrue_from > inserted.start_date ? inserted.accrue_from : inserted.start_date;
      await ledgerFollowsAgreement(trx, companyId, inserted, since, now);
    }
    return { created: true, agreement: view(inserted) };
  });
}
