import type { ModuleCommand } from './command-kit.ts';

export const INVOICE_COMMANDS: ModuleCommand[] = [];
