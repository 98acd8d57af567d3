import iconv from 'iconv-lite';

// Statement files arrive as bytes: camt.053 is UTF-8 (DK rules), MT940 from German banks is
// often ISO-8859-1 / Windows-1252. UTF-8 is tried strictly first; bytes that are not valid
// UTF-8 are read as Windows-1252 (a superset of ISO-8859-1 for printable text). A leading
// UTF-8 BOM is dropped either way: some exports put one before Windows-1252 text.

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export function decodeText(bytes: Buffer): string {
  const body = bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes;
  try {
    return utf8.decode(body);
  } catch {
    return iconv.decode(body, 'win1252');
  }
}
