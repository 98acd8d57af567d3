import { accuracyOf } from './gobd-csv.ts';
import type { GobdColumn } from './gobd-tables.ts';

// index.xml of the export, by the GDPdU Beschreibungsstandard (DTD 1.5, shipped beside it
// as gdpdu-01-09-2004.dtd): one Media, one Table per CSV file with its columns — key
// columns as VariablePrimaryKey first — and the foreign keys between the tables. Every
// table is UTF-8, `;`-separated, CRLF, text in `"`, decimal comma, first line the column
// names (Range From 2). No moment of the export is written: the same data gives the same file.

export const DTD_FILE = 'gdpdu-01-09-2004.dtd';

export type IndexTable = {
  file: string;
  name: string;
  description: string;
  primaryKey: number;
  columns: GobdColumn[];
  foreignKeys: { columns: string[]; references: string }[];
};

const xmlText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function columnXml(column: GobdColumn, element: 'VariablePrimaryKey' | 'VariableColumn'): string {
  const accuracy = accuracyOf(column.type);
  const type =
    accuracy !== null
      ? `<Numeric><Accuracy>${accuracy}</Accuracy></Numeric>`
      : column.type === 'date'
        ? '<Date><Format>DD.MM.YYYY</Format></Date>'
        : '<AlphaNumeric/>';
  return `        <${element}><Name>${xmlText(column.name)}</Name><Description>${xmlText(column.description)}</Description>${type}</${element}>`;
}

function tableXml(table: IndexTable): string {
  return [
    '    <Table>',
    `      <URL>${xmlText(table.file)}</URL>`,
    `      <Name>${xmlText(table.name)}</Name>`,
    `      <Description>${xmlText(table.description)}</Description>`,
    '      <UTF8/>',
    '      <DecimalSymbol>,</DecimalSymbol>',
    '      <DigitGroupingSymbol>.</DigitGroupingSymbol>',
    '      <Range><From>2</From></Range>',
    '      <VariableLength>',
    '        <ColumnDelimiter>;</ColumnDelimiter>',
    '        <RecordDelimiter>&#13;&#10;</RecordDelimiter>',
    '        <TextEncapsulator>"</TextEncapsulator>',
    ...table.columns.map((column, i) => columnXml(column, i < table.primaryKey ? 'VariablePrimaryKey' : 'VariableColumn')),
    ...table.foreignKeys.map(
      (key) =>
        `        <ForeignKey>${key.columns.map((name) => `<Name>${xmlText(name)}</Name>`).join('')}<References>${xmlText(key.references)}</References></ForeignKey>`,
    ),
    '      </VariableLength>',
    '    </Table>',
  ].join('\n');
}

export function indexXml(supplier: { name: string; location: string; comment: string }, mediaName: string, tables: IndexTable[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<!DOCTYPE DataSet SYSTEM "${DTD_FILE}">`,
    '<DataSet>',
    '  <Version>1.0</Version>',
    '  <DataSupplier>',
    `    <Name>${xmlText(supplier.name)}</Name>`,
    `    <Location>${xmlText(supplier.location)}</Location>`,
    `    <Comment>${xmlText(supplier.comment)}</Comment>`,
    '  </DataSupplier>',
    '  <Media>',
    `    <Name>${xmlText(mediaName)}</Name>`,
    ...tables.map(tableXml),
    '  </Media>',
    '</DataSet>',
    '',
  ].join('\n');
}
