import { createSealer } from '../../src/shared/secrets.ts';

// A company that passes every issuing check, and the sealer tests use.
export const sealer = createSealer('test-secret');

export const COMPANY_FILE = {
  name: 'Muster Software GmbH',
  legal_form: 'GmbH',
  street: 'Hauptstraße',
  house_number: '1',
  zip: '10115',
  city: 'Berlin',
  country_code: 'DE',
  vat_id: 'DE136695976',
  tax_number: '30/123/45678',
  email: 'rechnung@muster.example',
  phone: '+49 30 1234567',
  contact_name: 'Erika Mustermann',
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  bank_name: 'Commerzbank',
  register_court: 'Amtsgericht Berlin-Charlottenburg',
  register_number: 'HRB 123456 B',
  managing_directors: ['Erika Mustermann', 'Max Mustermann'],
};
