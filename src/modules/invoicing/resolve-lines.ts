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
    let productId: string | null = null;
    let productNumber: string | null = null;
    if (line.product_ref !== undefined || line.product_number !== undefined) {
      const lookup =
        line.product_number !== undefined ? { productNumber: line.product_number } : { source: body.customer.source, ref: line.product_ref as string };
      const product = await findProductByRefOrNumber(trx, companyId, lookup);
      if (!product) throw productNotFound(lookup);
      productId = product.id;
      productNumber = product.product_number;
    }
    const quantity = String(line.quantity);
    lines.push({
      description: line.description,
      quantity,
      unit: line.unit ?? null,
      unitPriceNet: line.unit_price_net,
      vatRate: line.vat_rate,
      netCents: lineNetCents({ quantity, unitPriceNet: line.unit_price_net, vatRate: line.vat_rate }),
      taxExemptionReason: line.tax_exemption_reason ?? null,
      productNumber,
      productId,
    });
  }
  return lines;
}
