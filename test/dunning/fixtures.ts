import type { NoticeDocument } from '../../src/modules/dunning/notice-document.ts';
import type { Buyer, Seller } from '../../src/modules/invoicing/document.ts';

// A notice snapshot as the daily task freezes it, for the renderer and mail tests.

export const seller: Seller = {
  name: 'Muster Software',
  legalForm: 'GmbH',
  street: 'Hauptstraße',
  houseNumber: '1',
  zip: '10115',
  city: 'Berlin',
  countryCode: 'DE',
  vatId: 'DE136695976',
  taxNumber: '30/123/45678',
  email: 'rechnung@muster.example',
  phone: '+49 30 1234567',
  contactName: 'Erika Mustermann',
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  bankName: 'Commerzbank',
};

export const buyer: Buyer = {
  name: 'Beispiel AG',
  street: 'Ringstraße',
  houseNumber: '5',
  zip: '80331',
  city: 'München',
  countryCode: 'DE',
  vatId: 'DE136695976',
  email: 'buchhaltung@beispiel.example',
  customerNumber: '10001',
  customerType: 'business',
  contactName: 'Max Muster',
  leitwegId: null,
};

/** 2. Mahnung to a business over 1,000.00 €, 400.00 € paid, interest across 1 July 2025. */
export function secondNotice(overrides: Partial<NoticeDocument> = {}): NoticeDocument {
  return {
    level: 2,
    noticeDate: '2025-07-08',
    deadline: '2025-07-18',
    seller,
    buyer,
    consumer: false,
    invoice: { number: 'RE-2025-00042', issueDate: '2025-05-20', dueDate: '2025-06-03', gross: '1000.00' },
    previousNoticeDate: '2025-06-24',
    paid: '400.00',
    open: '600.00',
    fee: '5.00',
    earlierFees: '2.50',
    fees: '7.50',
    interest: {
      defaultSince: '2025-06-10',
      periods: [
        { from: '2025-06-11', to: '2025-06-30', days: 20, baseRate: '2.27', rate: '11.27', amount: '3.71' },
        { from: '2025-07-01', to: '2025-07-08', days: 8, baseRate: '1.27', rate: '10.27', amount: '1.35' },
      ],
      amount: '5.06',
    },
    lumpSum: '40.00',
    total: '652.56',
    ...overrides,
  };
}

export function reminder(): NoticeDocument {
  return secondNotice({
    level: 0,
    noticeDate: '2025-06-10',
    deadline: '2025-06-20',
    previousNoticeDate: null,
    paid: '0.00',
    open: '1000.00',
    fee: '0.00',
    earlierFees: '0.00',
    fees: '0.00',
    interest: null,
    lumpSum: '0.00',
    total: '1000.00',
  });
}
