import type { Database } from '../../db/connection.ts';
import type { Clock } from '../../shared/clock.ts';
import { isZipArchive, unpackStatementArchive } from './archive.ts';
import { type BankImportResult, importBankStatement } from './import-bank-statement.ts';
import { BankImportError } from './payments-error.ts';
import { StatementError } from './statement.ts';

// A file as a person downloads it from online banking: one statement file, or a ZIP
// archive of them (EBICS and FinTS downloads). An archive is imported file by file in the
// order of the names (banks name them by date), each file in a transaction of its own,
// so a refused file leaves the others imported; importing the archive again books nothing
// twice, file by file.

export type RefusedFile = { file_name: string; message: string };

export type BankFileImport = {
  /** The archive's name, or null for a single statement file. */
  archive: string | null;
  imports: BankImportResult[];
  /** Files of an archive that were refused (nothing imported from them). */
  refused: RefusedFile[];
};

export async function importBankFile(
  db: Database,
  clock: Clock,
  companyId: string,
  bytes: Buffer,
  options: { fileName?: string | null } = {},
): Promise<BankFileImport> {
  const fileName = options.fileName ?? null;
  if (!isZipArchive(bytes)) return { archive: null, imports: [await importBankStatement(db, clock, companyId, bytes, { fileName })], refused: [] };
  const result: BankFileImport = { archive: fileName, imports: [], refused: [] };
  for (const file of unpackStatementArchive(bytes)) {
    const name = fileName ? `${fileName}/${file.name}` : file.name;
    try {
      result.imports.push(await importBankStatement(db, clock, companyId, file.bytes, { fileName: name }));
    } catch (error) {
      // A refusal of one file (its content, a locked period) leaves the rest to import;
      // anything else (no such company, the database gone) ends the whole import.
      const refusal = error instanceof StatementError || (error instanceof BankImportError && error.code !== 'company_not_found');
      if (!refusal) throw error;
      result.refused.push({ file_name: name, message: error.message });
    }
  }
  return result;
}
