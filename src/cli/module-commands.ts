import { APP_ACTION_COMMANDS } from './app-action-commands.ts';
import { ATTRIBUTION_COMMANDS } from './attribution-commands.ts';
import { BANK_COMMANDS } from './bank-commands.ts';
import type { ModuleCommand } from './command-kit.ts';
import { PERIOD_COMMANDS } from './period-commands.ts';
import { STATEMENT_COMMANDS } from './statement-commands.ts';
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
];
