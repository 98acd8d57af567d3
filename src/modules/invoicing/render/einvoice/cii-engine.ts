// A faster engine under @e-invoice-eu/core's CII writer, same output byte for byte.
//
// The library maps the invoice data (UBL-shaped JSON) to CII by walking its own table of
// transformations, resolving every source and destination through JSONPath strings, then
// serialises the result through xmlbuilder2's DOM. Per 10-line invoice that was ~4 ms of
// ~12.5 ms of rendering (issue 26 profile, bench/RESULTS.md). Here the same table is walked
// with path arrays (no JSONPath parsing) and the object is written straight to text with
// xmlbuilder2's rules (escaping, pretty print with tabs, empty elements self-closed).
// The library still owns the table, the defaults and its post-processing: only its two
// inner methods `convert` and `renderXML` are replaced on our instances. The tests render
// every fixture and many generated documents through both and compare the bytes
// (test/invoicing/render/cii-engine.test.ts), so an update of the library that changes
// the semantics fails there, not in a customer's e-invoice.

type Transformation = {
  type: 'object' | 'array' | 'string';
  subtype?: string;
  src: string[];
  dest: string[];
  children?: Transformation[];
  fxProfileMask: number;
};

type Path = (string | number)[];
type Node = Record<string, unknown> | unknown[];

/** The library's FX_MINIMUM profile bit (no header delivery content). */
const FX_MINIMUM = 0x20;

/** A sub-path list compiled once: how many `..` segments drop from the end, then the keys added. */
type Step = { drop: number; add: Path };
const steps = new WeakMap<string[], Step>();

/** A sub-path as segments: `cac:PaymentMeans[0]` is the key and the index (as JSONPath reads it). */
function segments(sub: string): Path {
  const match = /^(.*?)((?:\[[0-9]+\])*)$/.exec(sub)!;
  return [match[1]!, ...[...match[2]!.matchAll(/\[([0-9]+)\]/g)].map((m) => Number(m[1]))];
}

/** The library's applySubPaths, compiled: `..` drops the last segment (a key or an index). */
function stepOf(subPaths: string[]): Step {
  let step = steps.get(subPaths);
  if (!step) {
    const path: (string | number | null)[] = [];
    let drop = 0;
    for (const sub of subPaths) {
      if (sub === '..') {
        if (path.length > 0) path.pop();
        else drop++;
      } else if (sub.startsWith('@')) throw new Error(`CII engine: sub-path ${sub} is not supported (library changed?)`);
      else path.push(...segments(sub));
    }
    step = { drop, add: path as Path };
    steps.set(subPaths, step);
  }
  return step;
}

/** A path into the source with the value at each of its prefixes (nodes[0] is the root). */
type Cursor = { path: Path; nodes: unknown[]; found: boolean };

const hasOwn = Object.prototype.hasOwnProperty;

/** JSONPath's look-up of a plain path from a known prefix: own properties only, undefined values count as found. */
function walk(cursor: Cursor, step: Step): Cursor {
  const keep = cursor.path.length - step.drop;
  if (keep < 0) return { path: [], nodes: [], found: false };
  const path = cursor.path.slice(0, keep);
  const nodes = cursor.nodes.slice(0, keep + 1);
  let value = nodes[keep];
  let found = cursor.found;
  for (const key of step.add) {
    path.push(key);
    if (found && value && hasOwn.call(value, key)) value = (value as Record<string | number, unknown>)[key];
    else {
      found = false;
      value = undefined;
    }
    nodes.push(value);
  }
  return { path, nodes, found };
}

function destPath(path: Path, step: Step): Path {
  const result = path.slice(0, Math.max(0, path.length - step.drop));
  for (const key of step.add) result.push(key);
  return result;
}

/** The library's vivifyDest: containers are made on the way, an index makes an array. */
function vivify(dest: Node, path: Path, value: unknown): void {
  let at = dest as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (at[key] === undefined || at[key] === null) at[key] = typeof path[i + 1] === 'number' ? [] : {};
    at = at[key] as Record<string | number, unknown>;
  }
  at[path[path.length - 1]!] = value;
}

/** Whether the destination holds something at `path` (JSONPath's look-up in the library's `fixed:` case). */
function exists(dest: Node, path: Path): boolean {
  let value: unknown = dest;
  for (const key of path) {
    if (value && hasOwn.call(value, key)) value = (value as Record<string | number, unknown>)[key];
    else return false;
  }
  return true;
}

function convert(fxProfile: number, src: Cursor, dest: Node, destAt: Path, transformations: Transformation[]): void {
  for (const t of transformations) {
    if (!(fxProfile & t.fxProfileMask)) continue;
    const lastSrc = t.src[t.src.length - 1];
    const lastDest = t.dest[t.dest.length - 1];
    let value: unknown;
    let childSrc: Cursor;
    if (lastSrc?.startsWith('fixed:') && lastDest?.includes('@')) {
      const parentPaths = [...t.dest];
      parentPaths[parentPaths.length - 1] = lastDest.replace(/@.+/, '');
      if (!exists(dest, destPath(destAt, stepOf(parentPaths)))) continue;
      value = lastSrc.substring(6);
      childSrc = src;
    } else {
      childSrc = walk(src, stepOf(t.src));
      if (!childSrc.found) continue;
      value = childSrc.nodes[childSrc.nodes.length - 1];
    }
    const childDest = destPath(destAt, stepOf(t.dest));
    switch (t.type) {
      case 'object':
        if (!t.children?.length || (t.dest[0] === 'ram:ApplicableHeaderTradeDelivery' && fxProfile === FX_MINIMUM)) vivify(dest, childDest, {});
        else convert(fxProfile, childSrc, dest, childDest, t.children);
        break;
      case 'array': {
        const length = (value as { length: number }).length;
        for (let i = 0; i < length; ++i) {
          const item = walk(childSrc, { drop: 0, add: [i] });
          convert(fxProfile, item, dest, t.dest.length ? [...childDest, i] : childDest, t.children ?? []);
        }
        break;
      }
      case 'string':
        vivify(dest, childDest, t.subtype === 'DateTimeString' ? (value as string).replaceAll('-', '') : value);
        break;
    }
  }
}

const escapeText = (text: string) => (/[&<>]/.test(text) ? text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : text);
const escapeAttribute = (text: string) =>
  /[&<>"]/.test(text) ? text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;') : text;

type Attributes = [name: string, value: unknown][];

/** The `elem@attr` keys of an object, per element (what the library's cleanAttributes moves). */
function attributesOf(object: Record<string, unknown>): Map<string, Attributes> | null {
  let map: Map<string, Attributes> | null = null;
  for (const key in object) {
    const at = key.indexOf('@');
    if (at <= 0) continue;
    const elem = key.slice(0, at);
    const rest = key.slice(at + 1);
    const attr = rest.includes('@') ? rest.slice(0, rest.indexOf('@')) : rest;
    if (object[elem] === undefined || object[elem] === null) throw new TypeError(`CII engine: attribute ${key} of a missing element`);
    if (typeof object[elem] === 'object' && Array.isArray(object[elem])) throw new Error(`CII engine: attribute ${key} of a repeated element is not supported`);
    map ??= new Map();
    const list = map.get(elem) ?? [];
    if (list.length === 0) map.set(elem, list);
    list.push([attr, object[key]]);
  }
  return map;
}

function attributeText(attributes: Attributes | undefined): string {
  if (!attributes) return '';
  let text = '';
  for (const [name, value] of attributes) if (value !== undefined && value !== null) text += ` ${name}="${escapeAttribute(String(value))}"`;
  return text;
}

/** One element as xmlbuilder2 pretty-prints it (tabs, one text child inline, empty self-closed). */
function element(out: string[], indent: string, name: string, value: unknown, attributes: Attributes | undefined): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) element(out, indent, name, item, attributes);
    return;
  }
  const open = `${indent}<${name}${attributeText(attributes)}`;
  if (typeof value !== 'object') {
    const text = String(value);
    out.push(text === '' ? `${open}/>` : `${open}>${escapeText(text)}</${name}>`);
    return;
  }
  const object = value as Record<string, unknown>;
  const own = attributesOf(object);
  let text: string | null = null;
  const children: string[] = [];
  const ownAttributes: Attributes = [];
  for (const key in object) {
    const child = object[key];
    if (key === '#') {
      // `#@attr` keys: attributes of the text, which xmlbuilder2 puts on this element.
      for (const attribute of own?.get('#') ?? []) ownAttributes.push(attribute);
      if (child !== undefined && child !== null && String(child) !== '') text = String(child);
    } else if (key.startsWith('@')) ownAttributes.push([key.slice(1), child]);
    else if (key.indexOf('@') > 0) continue;
    else element(children, `${indent}\t`, key, child, own?.get(key));
  }
  const start = ownAttributes.length ? `${open}${attributeText(ownAttributes)}` : open;
  if (text !== null && children.length === 0) out.push(`${start}>${escapeText(text)}</${name}>`);
  else if (text === null && children.length === 0) out.push(`${start}/>`);
  else if (text === null) out.push(`${start}>`, ...children, `${indent}</${name}>`);
  else throw new Error(`CII engine: element ${name} with text and children is not supported`);
}

/** The library's renderXML (cleanAttributes, then xmlbuilder2 with prettyPrint and tab indent). */
export function renderCiiXml(data: Record<string, unknown>): string {
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>'];
  const attributes = attributesOf(data);
  for (const key in data) {
    if (key.indexOf('@') > 0) continue;
    element(out, '', key, data[key], attributes?.get(key));
  }
  return out.join('\n');
}

type CiiService = {
  fxProfile: number;
  convert(invoice: unknown, srcPath: string, dest: Node, destPath: string, transformations: Transformation[]): void;
  renderXML(data: Record<string, unknown>): string;
};

/** Puts the faster engine under one of the library's CII format services (the instance only). */
export function useFastCiiEngine(service: object): void {
  const cii = service as CiiService;
  if (typeof cii.convert !== 'function' || typeof cii.renderXML !== 'function') throw new Error('CII engine: the library no longer has convert/renderXML');
  cii.convert = function (invoice, srcPath, dest, destPath, transformations) {
    if (srcPath !== '$' || destPath !== '$') throw new Error('CII engine: only the whole invoice is converted');
    convert(this.fxProfile, { path: [], nodes: [invoice], found: true }, dest, [], transformations);
  };
  cii.renderXML = (data) => renderCiiXml(data);
}
