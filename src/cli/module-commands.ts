import { API_KEY_COMMANDS } from './api-key-commands.ts';
import { APP_ACTION_COMMANDS } from './app-action-commands.ts';
import { ATTRIBUTION_COMMANDS } from './attribution-commands.ts';
import { BANK_COMMANDS } from './bank-commands.ts';
import type { ModuleCommand } from './command-kit.ts';
import { DUNNING_COMMANDS } from './dunning-commands.ts';
import { INVOICE_COMMANDS } from './invoice-commands.ts';
import { PERIOD_COMMANDS } from './period-commands.ts';
import { PORTAL_COMMANDS } from './portal-commands.ts';
import { RECORD_COMMANDS } from './record-commands.ts';
import { SETTINGS_COMMANDS } from './settings-commands.ts';
import { STATEMENT_COMMANDS } from './statement-commands.ts';
import { TAX_COMMANDS } from './tax-commands.ts';
import { USER_COMMANDS } from './user-commands.ts';
import { WEBHOOK_COMMANDS } from './webhook-commands.ts';

// Commands that modules add to `kontor`. Each module keeps its handlers in a file of
// its own next to this one (e.g. bank-commands.ts) and lists them here.
export const MODULE_COMMANDS: ModuleCommand[] = [
  ...WEBHOOK_COMMANDS,
  ...BANK_COMMANDS,
  ...PERIOD_COMMANDS,
  ...STATEMENT_COMMANDS,
  ...ATTRIBUTION_COMMANDS,
  ...APP_ACTION_COMMANDS,
  ...USER_COMMANDS,
  ...SETTINGS_COMMANDS,
  ...API_KEY_COMMANDS,
  ...RECORD_COMMANDS,
  ...INVOICE_COMMANDS,
  ...DUNNING_COMMANDS,
  ...PORTAL_COMMANDS,
  ...TAX_COMMANDS,
];
