import { addDays } from '../../shared/dates.ts';
import type { CustomerRow } from '../customers/customers.repository.ts';
import { buildInvoiceDocument, type CompanyRow } from './build-document.ts';
import type { CreateInvoiceBody } from './create-invoice-input.ts';
import type { InvoiceDocument, VatVerdict } from './document.ts';
import { checkIssuingDetails } from './issuing-checks.ts';
import type { ResolvedLine } from './resolve-lines.ts';
import { decideVat } from './vat-verdict.ts';

// The pure part of issuing an invoice: the VAT verdict with the issuing checks, and the
// document snapshot. The issuing transaction calls both; so does the early render
// (early-render.ts), which must predict exactly what the transaction will build.

/** What of a request the snapshot reads. */
export type IssueTerms = Pick<CreateInvoiceBody, 'service_period' | 'payment_terms_days'>;

export type IssueInputs = { company: CompanyRow; customer: CustomerRow; lines: ResolvedLine[]; body: IssueTerms; issueDate: string };

/** The VAT verdict and the German messages that stop issuing (none: issuable). */
export function issuingVerdict(
  { company, customer, lines }: Pick<IssueInputs, 'company' | 'customer' | 'lines'>,
  options: { domesticSupplyConfirmed?: boolean } = {},
): { verdict: VatVerdict; messages: string[] } {
  // Without the customer's country there is no verdict to reach (the upsert allows a customer
  // without one): the checks name the missing country, and nothing is guessed for it.
  const decided = customer.country_code
    ? decideVat(
        {
          company: { smallBusiness: company.small_business, euDistanceThresholdExceeded: company.eu_distance_threshold_exceeded },
          customer: { countryCode: customer.country_code, customerType: customer.customer_type, vatId: customer.vat_id },
          lines,
        },
        options,
      )
    : null;
  const messages = [...checkIssuingDetails(company, customer, decided?.verdict ?? null), ...(decided?.messages ?? [])];
  // 'domestic' stands in when there is no verdict: the messages then name the missing country, so it is never issued.
  return { verdict: decided?.verdict ?? 'domestic', messages };
}

export function paymentTermsDays(company: CompanyRow, body: Pick<CreateInvoiceBody, 'payment_terms_days'>): number {
  return body.payment_terms_days ?? company.payment_terms_days;
}

/** The snapshot of the invoice issued under `number` on `issueDate`. */
export function issuedDocument(inputs: IssueInputs, verdict: VatVerdict, number: string): InvoiceDocument {
  const terms = paymentTermsDays(inputs.company, inputs.body);
  return buildInvoiceDocument({
    company: inputs.company,
    customer: inputs.customer,
    verdict,
    number,
    issueDate: inputs.issueDate,
    dueDate: addDays(inputs.issueDate, terms),
    servicePeriod: inputs.body.service_period,
    paymentTermsDays: terms,
    lines: inputs.lines,
  });
}
