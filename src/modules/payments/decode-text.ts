import iconv from 'iconv-lite';

// Statement files arrive as bytes: camt.053 is UTF-8 (DK rules), MT940 from German banks is
// often ISO-8859-1 / Windows-1252. UTF-8 is tried strictly first; bytes that are not valid
// UTF-8 are read as Windows-1252 (a superset of ISO-8859-1 for printable text).

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export function decodeText(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return iconv.decode(bytes, 'win1252');
  }
}
