/** The PDF table: header on every page, cells cut to their column, page breaks, WinAnsi text. */
import t from 'tap';
import { PdfTable } from '../../plugins/io/pdfTable.ts';
import { pdfPages, pdfText } from './pdfText.ts';

function render(rows: string[][], compress = false): Promise<Buffer> {
  const table = new PdfTable({
    title: 'Items — export',
    columns: [{ label: 'Item name', weight: 20 }, { label: 'Quantity', weight: 8 }, { label: 'Note', weight: 12 }],
    compress,
  });
  const chunks: Buffer[] = [];
  table.doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => table.doc.on('end', () => resolve(Buffer.concat(chunks))));
  table.addRows(rows);
  table.end();
  return done;
}

t.test('a small table', async (t) => {
  const pdf = await render([['Hammer', '3', 'short'], ['Nail “steel”', '100', 'x'.repeat(300)], ['日本 Éva', '', ''], ['a (b) \\ c', '', 'tab\there']]);
  t.equal(pdf.subarray(0, 5).toString(), '%PDF-', 'a PDF file');
  const text = pdfText(pdf);
  t.same(text.slice(0, 2), ['Items — export', 'Page 1'], 'title and page number');
  t.same(text.slice(2, 5), ['Item name', 'Quantity', 'Note'], 'the header row');
  t.same(text.slice(5, 8), ['Hammer', '3', 'short'], 'the first row');
  t.equal(text[8], 'Nail “steel”', 'WinAnsi punctuation is kept');
  t.match(text[10], /^x+…$/, 'a long cell is cut with an ellipsis');
  t.ok(text[10]!.length < 100, 'to its column width');
  t.equal(text[11], '?? Éva', 'characters outside WinAnsi print as ?; Latin-1 is kept');
  t.same(text.slice(12, 14), ['a (b) \\ c', 'tab here'], 'parentheses and backslashes are escaped; control characters print as spaces');
  t.equal(pdfPages(pdf), 1, 'one page');
});

t.test('page breaks repeat the header', async (t) => {
  const rows = Array.from({ length: 130 }, (_, i) => [`row ${i}`, String(i), '']);
  const pdf = await render(rows);
  const text = pdfText(pdf);
  const pages = pdfPages(pdf);
  t.ok(pages >= 3, `several pages (${pages})`);
  t.equal(text.filter((s) => s === 'Item name').length, pages, 'the header on every page');
  t.same(text.filter((s) => /^Page \d+$/.test(s)), Array.from({ length: pages }, (_, i) => `Page ${i + 1}`), 'numbered pages');
  t.same(text.filter((s) => /^row \d+$/.test(s)), rows.map((r) => r[0]), 'every row once, in order');
});

t.test('compressed output reads the same', async (t) => {
  const rows = [['a', '1', 'b']];
  t.same(pdfText(await render(rows, true)), pdfText(await render(rows, false)), 'same text');
});
