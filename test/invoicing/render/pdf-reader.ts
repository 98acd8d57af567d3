// A minimal PDF reader for the renderer tests, pure JS so CI needs no poppler: it knows
// exactly what pdfkit writes (no object streams, direct /Length, FlateDecode streams,
// Type0 fonts with ToUnicode CMaps) and is not a general PDF parser.
import { inflateSync } from 'node:zlib';

export type PdfObject = { id: number; dict: string; stream: Buffer | null };

export function readObjects(pdf: Buffer): Map<number, PdfObject> {
  const text = pdf.toString('latin1');
  const objects = new Map<number, PdfObject>();
  const header = /(\d+) 0 obj\s*/g;
  for (let match = header.exec(text); match; match = header.exec(text)) {
    const id = Number(match[1]);
    const start = header.lastIndex;
    const end = text.indexOf('endobj', start);
    const body = text.slice(start, end);
    const streamAt = body.indexOf('\nstream\n');
    if (streamAt < 0) {
      objects.set(id, { id, dict: body.trim(), stream: null });
      continue;
    }
    const dict = body.slice(0, streamAt);
    const length = Number(/\/Length (\d+)/.exec(dict)?.[1] ?? 0);
    const dataStart = start + streamAt + '\nstream\n'.length;
    let data = pdf.subarray(dataStart, dataStart + length);
    if (dict.includes('/FlateDecode')) data = inflateSync(data);
    objects.set(id, { id, dict, stream: data });
    header.lastIndex = end;
  }
  return objects;
}

function ref(dict: string, key: string): number | null {
  const match = new RegExp(`/${key} (\\d+) 0 R`).exec(dict);
  return match ? Number(match[1]) : null;
}

/** glyph code (hex) → text, from a ToUnicode CMap. */
function parseCMap(cmap: string): Map<string, string> {
  const map = new Map<string, string>();
  const hexToText = (hex: string) => String.fromCodePoint(...(hex.match(/.{4}/g) ?? []).map((unit) => Number.parseInt(unit, 16)));
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const pair of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) map.set(pair[1]!.toLowerCase(), hexToText(pair[2]!));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const range of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F]+>)/g)) {
      const low = Number.parseInt(range[1]!, 16);
      const high = Number.parseInt(range[2]!, 16);
      const width = range[1]!.length;
      // pdfkit writes a ligature's target as several units in one entry: <0066 0066>.
      const targets = range[3]!.startsWith('[') ? [...range[3]!.matchAll(/<([0-9a-fA-F\s]+)>/g)].map((m) => m[1]!.replace(/\s+/g, '')) : null;
      for (let code = low; code <= high; code++) {
        const key = code.toString(16).padStart(width, '0');
        if (targets) {
          const target = targets[code - low];
          if (target) map.set(key, hexToText(target));
        } else {
          const base = Number.parseInt(range[3]!.slice(1, -1), 16);
          map.set(key, String.fromCodePoint(base + code - low));
        }
      }
    }
  }
  return map;
}

/** The text of every page, one line per text-showing operator, in page order. */
export function extractPages(pdf: Buffer): string[] {
  const objects = readObjects(pdf);
  const catalog = [...objects.values()].find((o) => /\/Type \/Catalog/.test(o.dict))!;
  const pagesId = ref(catalog.dict, 'Pages')!;
  const kids = /\/Kids \[([^\]]*)\]/.exec(objects.get(pagesId)!.dict)![1]!;
  const pageIds = [...kids.matchAll(/(\d+) 0 R/g)].map((m) => Number(m[1]));
  const cmaps = new Map<number, Map<string, string>>();
  return pageIds.map((pageId) => {
    const page = objects.get(pageId)!;
    const resourcesId = ref(page.dict, 'Resources');
    const resources = resourcesId ? objects.get(resourcesId)!.dict : page.dict;
    const fonts = new Map<string, Map<string, string>>();
    const fontDict = /\/Font <<([^>]*)>>/.exec(resources)?.[1] ?? '';
    for (const entry of fontDict.matchAll(/\/(\w+) (\d+) 0 R/g)) {
      const fontId = Number(entry[2]);
      const toUnicode = ref(objects.get(fontId)!.dict, 'ToUnicode');
      if (toUnicode && !cmaps.has(toUnicode)) cmaps.set(toUnicode, parseCMap(objects.get(toUnicode)!.stream!.toString('latin1')));
      fonts.set(entry[1]!, toUnicode ? cmaps.get(toUnicode)! : new Map());
    }
    const content = objects.get(ref(page.dict, 'Contents')!)!.stream!.toString('latin1');
    const lines: string[] = [];
    let current = new Map<string, string>();
    for (const op of content.matchAll(/\/(\w+) [\d.]+ Tf|\[((?:<[0-9a-fA-F]*>|[-\d.\s])*)\] TJ|<([0-9a-fA-F]*)> Tj/g)) {
      if (op[1]) {
        current = fonts.get(op[1]) ?? new Map();
        continue;
      }
      const hex = op[2] ? [...op[2].matchAll(/<([0-9a-fA-F]*)>/g)].map((m) => m[1]).join('') : op[3]!;
      lines.push((hex.match(/.{4}/g) ?? []).map((code) => current.get(code.toLowerCase()) ?? '?').join(''));
    }
    return lines.join('\n');
  });
}

/** Every font is embedded: each descriptor carries a font file and no standard-14 font is used. */
export function fontsReport(pdf: Buffer): { fonts: string[]; allEmbedded: boolean } {
  const objects = [...readObjects(pdf).values()];
  const fonts = objects.filter((o) => /\/Type \/Font\b/.test(o.dict)).map((o) => /\/BaseFont \/([^\s/>]+)/.exec(o.dict)?.[1] ?? '?');
  const descriptors = objects.filter((o) => /\/Type \/FontDescriptor/.test(o.dict));
  const simpleUnembedded = objects.some((o) => /\/Subtype \/(Type1|TrueType)\b/.test(o.dict) && !ref(o.dict, 'FontDescriptor'));
  const allEmbedded = descriptors.length > 0 && descriptors.every((d) => /\/FontFile[23]? \d+ 0 R/.test(d.dict)) && !simpleUnembedded;
  return { fonts, allEmbedded };
}

export type Attachment = { name: string; relationship: string | null; subtype: string | null; data: Buffer };

export function attachments(pdf: Buffer): Attachment[] {
  const objects = readObjects(pdf);
  return [...objects.values()]
    .filter((o) => /\/Type \/Filespec/.test(o.dict))
    .map((spec) => {
      const file = objects.get(Number(/\/EF <<\s*\/F (\d+) 0 R/.exec(spec.dict)![1]))!;
      return {
        name: /\/F \(([^)]*)\)/.exec(spec.dict)?.[1] ?? '',
        relationship: /\/AFRelationship \/(\w+)/.exec(spec.dict)?.[1] ?? null,
        subtype: /\/Subtype \/([^\s/>]+)/.exec(file.dict)?.[1] ?? null,
        data: file.stream!,
      };
    });
}

export function catalogDict(pdf: Buffer): string {
  return [...readObjects(pdf).values()].find((o) => /\/Type \/Catalog/.test(o.dict))!.dict;
}

export function xmpMetadata(pdf: Buffer): string | null {
  const metadata = [...readObjects(pdf).values()].find((o) => /\/Type \/Metadata/.test(o.dict));
  return metadata?.stream?.toString('utf8') ?? null;
}
