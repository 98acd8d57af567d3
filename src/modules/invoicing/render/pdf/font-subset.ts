// The TrueType subset file pdfkit embeds for each font of each document, written without
// restructure's generic encoder (issue 26). fontkit's TTFSubset.encode() collects the used
// glyphs' outlines and metrics (kept here: `_addGlyph`) and then writes the file with
// restructure, which encodes every loca offset, every metric and every byte of the
// prep/fpgm programs field by field: ~2 ms per invoice for two fonts. Here the file is
// assembled from the same parts: the tables that never change for a font (head, hhea,
// maxp, cvt, prep, fpgm) are taken once per font from fontkit's own encoding and only their
// counts are patched; loca, glyf and hmtx are written directly. The bytes are the same as
// fontkit's: the renderer tests encode every fixture's subsets both ways and compare them.

/** fontkit's TTFSubset: the fields encode() uses (not in any typings). */
type TtfSubset = {
  font: object;
  glyphs: number[];
  glyf: Uint8Array[];
  offset: number;
  loca: { offsets: number[]; version: number };
  hmtx: { metrics: { advance: number; bearing: number }[]; bearings: number[] };
  _addGlyph(gid: number): number;
  encode(): Uint8Array;
};

/** The tables fontkit writes with the glyphs; every other table depends only on the font. */
const PER_SUBSET = new Set(['loca', 'glyf', 'hmtx']);
/** fontkit's tables in its order (the font's own if it lacks cvt, prep or fpgm) and the constant ones' bytes. */
type Constant = { order: string[]; tables: Map<string, Uint8Array> };

const constants = new WeakMap<object, Constant>();

/** Reads the table directory of an sfnt as fontkit writes it (no padding, checksums 0). */
function tablesOf(file: Uint8Array): Map<string, Uint8Array> {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const count = view.getUint16(4);
  const tables = new Map<string, Uint8Array>();
  for (let i = 0; i < count; i++) {
    const at = 12 + i * 16;
    const tag = String.fromCharCode(file[at]!, file[at + 1]!, file[at + 2]!, file[at + 3]!);
    const offset = view.getUint32(at + 8);
    const length = view.getUint32(at + 12);
    tables.set(tag, file.subarray(offset, offset + length));
  }
  return tables;
}

/** The constant tables of the subset's font, from one encoding by fontkit itself. */
function constantTables(subset: TtfSubset, originalEncode: () => Uint8Array): Constant {
  let constant = constants.get(subset.font);
  if (!constant) {
    const written = tablesOf(originalEncode.call(subset));
    const order = [...written.keys()];
    for (const tag of ['head', 'hhea', 'maxp', ...PER_SUBSET]) if (!written.has(tag)) throw new Error(`font subset: fontkit wrote no ${tag} table`);
    const tables = new Map([...written].filter(([tag]) => !PER_SUBSET.has(tag)).map(([tag, bytes]) => [tag, Uint8Array.from(bytes)]));
    constant = { order, tables };
    constants.set(subset.font, constant);
  }
  return constant;
}

/** fontkit's TTFSubset.encode() with the file written directly. */
function encodeSubset(subset: TtfSubset, constant: Constant): Uint8Array {
  // As fontkit: collect outlines and metrics; _addGlyph may append composite glyphs' parts.
  subset.glyf = [];
  subset.offset = 0;
  subset.loca = { offsets: [], version: (subset.font as { loca: { version: number } }).loca.version };
  subset.hmtx = { metrics: [], bearings: [] };
  for (let i = 0; i < subset.glyphs.length; i++) subset._addGlyph(subset.glyphs[i]!);
  subset.loca.offsets.push(subset.offset);
  const glyphCount = subset.glyf.length;
  const shortLoca = subset.loca.version === 0;

  const tables = new Map(constant.tables);
  const patched = (tag: string, at: number, value: number, signed = false) => {
    const bytes = Uint8Array.from(tables.get(tag)!);
    if (signed) new DataView(bytes.buffer).setInt16(at, value);
    else new DataView(bytes.buffer).setUint16(at, value);
    tables.set(tag, bytes);
  };
  patched('head', 50, subset.loca.version, true); // indexToLocFormat
  patched('hhea', 34, subset.hmtx.metrics.length); // numberOfMetrics
  patched('maxp', 4, glyphCount); // numGlyphs

  const loca = new Uint8Array(subset.loca.offsets.length * (shortLoca ? 2 : 4));
  const locaView = new DataView(loca.buffer);
  subset.loca.offsets.forEach((offset, i) => {
    if (shortLoca) locaView.setUint16(i * 2, offset >>> 1);
    else locaView.setUint32(i * 4, offset);
  });
  const hmtx = new Uint8Array(subset.hmtx.metrics.length * 4);
  const hmtxView = new DataView(hmtx.buffer);
  subset.hmtx.metrics.forEach((metric, i) => {
    hmtxView.setUint16(i * 4, metric.advance);
    hmtxView.setInt16(i * 4 + 2, metric.bearing);
  });
  const glyf = new Uint8Array(subset.offset);
  let at = 0;
  for (const buffer of subset.glyf) {
    glyf.set(buffer, at);
    at += buffer.length;
  }
  tables.set('loca', loca).set('glyf', glyf).set('hmtx', hmtx);

  const count = constant.order.length;
  const exponent = Math.floor(Math.log(count) / Math.LN2);
  const searchRange = 2 ** exponent * 16;
  let size = 12 + count * 16;
  for (const tag of constant.order) size += tables.get(tag)!.length;
  const file = new Uint8Array(size);
  const view = new DataView(file.buffer);
  file.set([0x74, 0x72, 0x75, 0x65], 0); // 'true', as fontkit tags its subsets
  view.setUint16(4, count);
  view.setUint16(6, searchRange);
  view.setUint16(8, exponent);
  view.setUint16(10, count * 16 - searchRange);
  let offset = 12 + count * 16;
  constant.order.forEach((tag, i) => {
    const bytes = tables.get(tag)!;
    const entry = 12 + i * 16;
    for (let c = 0; c < 4; c++) file[entry + c] = tag.charCodeAt(c);
    view.setUint32(entry + 4, 0); // fontkit writes no checksums
    view.setUint32(entry + 8, offset);
    view.setUint32(entry + 12, bytes.length);
    file.set(bytes, offset);
    offset += bytes.length;
  });
  return file;
}

/** True for a fontkit TrueType subset whose encode() can be replaced. */
function isTtfSubset(subset: unknown): subset is TtfSubset {
  const s = subset as Partial<TtfSubset> | null;
  return !!s && typeof s._addGlyph === 'function' && typeof s.encode === 'function' && Array.isArray(s.glyphs) && !('cff' in s && s.cff);
}

/**
 * Gives one document's font subset the direct writer. The first subset of each font is
 * encoded once by fontkit to take the constant tables from.
 */
export function useDirectSubsetWriter(subset: unknown): void {
  if (!isTtfSubset(subset)) return;
  const originalEncode = subset.encode;
  subset.encode = () => encodeSubset(subset, constantTables(subset, originalEncode));
}
