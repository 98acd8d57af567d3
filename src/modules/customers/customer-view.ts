import type { CustomerRow } from './customers.repository.ts';

/** The Customer as the API shows it (interface §2). */
export function customerView(row: CustomerRow) {
  return {
    id: row.id,
    kundennummer: String(row.kundennummer),
    external_source: row.external_source,
    external_ref: row.external_ref,
    name: row.name,
    email: row.email,
    street: row.street,
    house_number: row.house_number,
    zip: row.zip,
    city: row.city,
    country_code: row.country_code,
    vat_id: row.vat_id,
    customer_type: row.customer_type,
    leitweg_id: row.leitweg_id,
    contact_name: row.contact_name,
  };
}
export type CustomerView = ReturnType<typeof customerView>;
