import type { ModuleCommand } from './command-kit.ts';

export const SETTINGS_COMMANDS: ModuleCommand[] = [];
