// The one place that talks to @e-invoice-eu/core. Its InvoiceService compiles the whole
// invoice JSON schema with Ajv on every call (tens of ms); here the validator and the two
// CII format services are built once per process and reused.
import { type EInvoiceFormat, FormatFactoryService, type Invoice, invoiceSchema, type Logger } from '@e-invoice-eu/core';
import { Ajv2019 } from 'ajv/dist/2019.js';
import type { InvoiceDocument } from '../../document.ts';
import { shortcuts } from '../shortcuts.ts';
import { useFastCiiEngine } from './cii-engine.ts';
import { patchCii } from './cii-patches.ts';
import type { EInvoiceProfile } from './header.ts';
import { toInvoiceData } from './invoice-data.ts';

type Validate = (data: unknown) => boolean;

/** Library format per profile: plain CII carries BT-24 as we set it (EN 16931 core for Factur-X). */
const FORMAT: Record<EInvoiceProfile, string> = { xrechnung: 'XRECHNUNG-CII', en16931: 'CII' };

const silentLogger: Logger = { log() {}, warn() {}, error() {} } as unknown as Logger;

let validator: (Validate & { errors?: unknown }) | null = null;
const services = new Map<string, EInvoiceFormat>();

/**
 * The library types the item net price (BT-146) as an amount with at most two decimals,
 * but EN 16931 puts no decimal limit on unit prices and the snapshot keeps up to six
 * (e.g. 0.0015 € per API call). The copy we compile accepts any non-negative decimal there.
 */
function patchedSchema(): typeof invoiceSchema {
  const schema = structuredClone(invoiceSchema) as unknown as {
    $defs: { dataTypes: Record<string, unknown> };
    properties: Record<string, { properties: Record<string, { items: { properties: Record<string, { properties: Record<string, unknown> }> } }> }>;
  };
  schema.$defs.dataTypes['UnitPriceAmount'] = { type: 'string', pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' };
  const price = schema.properties['ubl:Invoice']!.properties['cac:InvoiceLine']!.items.properties['cac:Price']!;
  price.properties['cbc:PriceAmount'] = { ...(price.properties['cbc:PriceAmount'] as object), $ref: '#/$defs/dataTypes/UnitPriceAmount' };
  return schema as unknown as typeof invoiceSchema;
}

function getValidator(): Validate & { errors?: unknown } {
  if (!validator) {
    // Same options as the library's InvoiceService, compiled once.
    const ajv = new Ajv2019({ strict: true, allErrors: true, useDefaults: true });
    validator = ajv.compile(patchedSchema()) as unknown as Validate & { errors?: unknown };
  }
  return validator;
}

function getService(profile: EInvoiceProfile): EInvoiceFormat {
  const key = `${profile}:${shortcuts.ciiEngine}`;
  let service = services.get(key);
  if (!service) {
    service = new FormatFactoryService().createFormatService(FORMAT[profile], silentLogger);
    if (shortcuts.ciiEngine) useFastCiiEngine(service);
    services.set(key, service);
  }
  return service;
}

/** Loads the schema validator and the format services (called by warmUpRenderers). */
export function warmUpEInvoice(): void {
  getValidator();
  getService('xrechnung');
  getService('en16931');
}

/** Renders the CII XML for a profile; throws if the mapped data breaks the library's schema. */
export function renderCii(doc: InvoiceDocument, profile: EInvoiceProfile): Promise<Buffer> {
  return renderCiiData(toInvoiceData(doc, profile), profile);
}

/**
 * The CII of invoice data already mapped (also used by revenue-share statements, whose
 * self-billed invoices map their own data); throws if the data breaks the library's schema.
 */
export async function renderCiiData(data: Invoice, profile: EInvoiceProfile): Promise<Buffer> {
  const validate = getValidator();
  if (!validate(data)) {
    throw new Error(`e-invoice data for ${data['ubl:Invoice']['cbc:ID']} is invalid: ${JSON.stringify(validate.errors)}`);
  }
  const service = getService(profile);
  service.fillInvoiceDefaults(data);
  const xml = await service.generate(data, { format: FORMAT[profile], lang: 'de-de' });
  const text = typeof xml === 'string' ? xml : new TextDecoder().decode(xml);
  return Buffer.from(patchCii(text, data), 'utf8');
}

/** XRechnung 3.0 in CII syntax (BT-24 `…#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0`). */
export function renderXRechnungCii(doc: InvoiceDocument): Promise<Buffer> {
  return renderCii(doc, 'xrechnung');
}

/** The EN 16931 CII embedded in a Factur-X/ZUGFeRD PDF (BT-24 `urn:cen.eu:en16931:2017`). */
export function renderFacturXml(doc: InvoiceDocument): Promise<Buffer> {
  return renderCii(doc, 'en16931');
}
