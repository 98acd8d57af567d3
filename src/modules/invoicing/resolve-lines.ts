import type { Trx } from '../../db/transaction.ts';
import { findProductByRefOrNumber, productNotFound } from '../products/index.ts';
import type { IssuedLine } from './build-document.ts';
import type { CreateInvoiceBody } from './create-invoice-input.ts';
import { lineNetCents } from './totals.ts';

export type ResolvedLine = IssuedLine & { productId: string | null };

/** The request's lines with their nets and products (404 product_not_found for an unknown one). */
export async function resolveLines(trx: Trx, companyId: string, body: CreateInvoiceBody): Promise<ResolvedLine[]> {
  const lines: ResolvedLine[] = [];
  for (const line of body.lines) {
    let product: { id: string; product_number: string | null } | null = null;
    if (line.product_ref !== undefined || line.product_number !== undefined) {
      const lookup =
        line.product_number !== undefined ? { productNumber: line.product_number } : { source: body.customer.source, ref: line.product_ref as string };
      product = (await findProductByRefOrNumber(trx, companyId, lookup)) ?? null;
      if (!product) throw productNotFound(lookup);
    }
    lines.push(resolvedLine(line, product));
  }
  return lines;
}

/** The lines when none names a product (no database needed), else null. */
export function linesWithoutProducts(body: CreateInvoiceBody): ResolvedLine[] | null {
  if (body.lines.some((line) => line.product_ref !== undefined || line.product_number !== undefined)) return null;
  return body.lines.map((line) => resolvedLine(line, null));
}

function resolvedLine(line: CreateInvoiceBody['lines'][number], product: { id: string; product_number: string | null } | null): ResolvedLine {
  const quantity = String(line.quantity);
  return {
    description: line.description,
    quantity,
    unit: line.unit ?? null,
    unitPriceNet: line.unit_price_net,
    vatRate: line.vat_rate,
    netCents: lineNetCents({ quantity, unitPriceNet: line.unit_price_net, vatRate: line.vat_rate }),
    taxExemptionReason: line.tax_exemption_reason ?? null,
    productNumber: product?.product_number ?? null,
    productId: product?.id ?? null,
  };
}
