import { unzipSync } from 'fflate';
import { refusal } from './not-a-statement.ts';
import { StatementError } from './statement.ts';

// ZIP archives as banks deliver statements (EBICS/FinTS download: a day's or a month's
// camt files in one ZIP). Unpacked in memory into the files to import one by one, in the
// order of their names. Sizes are checked from the central directory before anything is
// inflated, and fflate inflates an entry into a buffer of its declared size, so a ZIP
// that lies about its sizes cannot grow beyond the limit either.

/** Unpacked size of all files together. */
export const ARCHIVE_LIMIT_BYTES = 200 * 1024 * 1024;

const MB = 1024 * 1024;

export type ArchiveFile = { name: string; bytes: Buffer };

/** A local file header (PK\3\4) or the end record of an empty archive (PK\5\6). */
export function isZipArchive(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));
}

/** Directories, macOS resource forks (__MACOSX/) and hidden files (.DS_Store) are no statements. */
function skipped(name: string): boolean {
  return name.endsWith('/') || name.split('/').some((part) => part === '__MACOSX' || part.startsWith('.'));
}

const u16 = (bytes: Buffer, at: number) => bytes.readUInt16LE(at);
const u32 = (bytes: Buffer, at: number) => bytes.readUInt32LE(at);

/** The general-purpose flags of each central directory entry, in directory order (bit 0: encrypted). fflate does not show them. */
function entryFlags(bytes: Buffer): number[] {
  // The end record sits in the last 22 bytes plus at most a 64 kB comment.
  const first = Math.max(0, bytes.length - 22 - 0xffff);
  let end = bytes.length - 22;
  while (end >= first && u32(bytes, end) !== 0x06054b50) end--;
  if (end < first) throw new StatementError('the ZIP archive is damaged: it has no central directory (the download may be incomplete)');
  let count = u16(bytes, end + 10);
  let offset = u32(bytes, end + 16);
  // ZIP64: the counts and offsets live in the ZIP64 end record the locator points to.
  if (end >= 20 && u32(bytes, end - 20) === 0x07064b50) {
    const zip64 = Number(bytes.readBigUInt64LE(end - 12));
    if (zip64 + 56 <= bytes.length && u32(bytes, zip64) === 0x06064b50) {
      count = Number(bytes.readBigUInt64LE(zip64 + 32));
      offset = Number(bytes.readBigUInt64LE(zip64 + 48));
    }
  }
  const flags: number[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > bytes.length || u32(bytes, offset) !== 0x02014b50)
      throw new StatementError('the ZIP archive is damaged: its central directory is cut off');
    flags.push(u16(bytes, offset + 8));
    offset += 46 + u16(bytes, offset + 28) + u16(bytes, offset + 30) + u16(bytes, offset + 32);
  }
  return flags;
}

type Listed = { name: string; size: number; encrypted: boolean; compression: number };

function listEntries(bytes: Buffer): Listed[] {
  const flags = entryFlags(bytes);
  const listed: Listed[] = [];
  unzipSync(bytes, {
    filter: (file) => {
      // AES-encrypted entries carry compression method 99 instead of flag bit 0.
      const encrypted = ((flags[listed.length] ?? 0) & 1) === 1 || file.compression === 99;
      listed.push({ name: file.name, size: file.originalSize, encrypted, compression: file.compression });
      return false;
    },
  });
  return listed;
}

/**
 * The statement files of a ZIP archive, in the order of their names (skipping directories,
 * __MACOSX/ and hidden files). Refuses a damaged or encrypted archive, one that holds
 * another ZIP, no files, or more than ARCHIVE_LIMIT_BYTES unpacked.
 */
export function unpackStatementArchive(bytes: Buffer, limit = ARCHIVE_LIMIT_BYTES): ArchiveFile[] {
  if (!isZipArchive(bytes)) throw new StatementError('the file is not a ZIP archive');
  let listed: Listed[];
  try {
    listed = listEntries(bytes);
  } catch (error) {
    if (error instanceof StatementError) throw error;
    throw new StatementError('the ZIP archive is damaged and cannot be unpacked (the download may be incomplete)');
  }
  // xlsx, docx, odt are ZIP archives too: name the document, not its parts.
  if (listed.some((entry) => entry.name === '[Content_Types].xml' || entry.name === 'mimetype'))
    throw new StatementError(refusal('an Excel workbook or another Office document (a ZIP of its own)'));
  const files = listed.filter((entry) => !skipped(entry.name));
  const encrypted = files.find((entry) => entry.encrypted);
  if (encrypted) throw new StatementError(`the ZIP archive is password-protected (${encrypted.name}); download it again without a password`);
  const nested = files.find((entry) => /\.zip$/i.test(entry.name));
  if (nested) throw new StatementError(`the ZIP archive holds another ZIP archive (${nested.name}); unpack that one and import its files`);
  if (files.length === 0) throw new StatementError('the ZIP archive holds no statement files');
  const packed = files.find((entry) => entry.compression !== 0 && entry.compression !== 8);
  if (packed)
    throw new StatementError(`the ZIP archive packs ${packed.name} with a method other than Deflate; unpack it yourself and import the files one by one`);
  const total = files.reduce((sum, entry) => sum + entry.size, 0);
  if (total > limit)
    throw new StatementError(
      `the ZIP archive unpacks to ${Math.ceil(total / MB)} MB, more than the ${Math.floor(limit / MB)} MB Kontor accepts; import its files in smaller parts`,
    );
  const wanted = new Set(files.map((entry) => entry.name));
  let unpacked: Record<string, Uint8Array>;
  try {
    unpacked = unzipSync(bytes, { filter: (file) => wanted.has(file.name) });
  } catch {
    throw new StatementError('the ZIP archive is damaged and cannot be unpacked (the download may be incomplete)');
  }
  const result = [...wanted]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => ({ name, bytes: Buffer.from(unpacked[name]!.buffer, unpacked[name]!.byteOffset, unpacked[name]!.byteLength) }));
  const inner = result.find((file) => isZipArchive(file.bytes));
  if (inner) throw new StatementError(`the ZIP archive holds another ZIP archive (${inner.name}); unpack that one and import its files`);
  return result;
}
