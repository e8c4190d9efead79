/**
 * RFC 4180 CSV: quoted fields with doubled quotes, CRLF or LF, a leading BOM. The delimiter is a
 * comma, or a semicolon when the header line has semicolons and no commas (spreadsheet exports
 * in many locales). Blank lines are dropped.
 */
export function parseCsv(text: string): string[][] {
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const firstLine = input.slice(0, input.search(/\r?\n|$/));
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    if (row.some((v) => v.trim() !== '')) rows.push(row);
    row = [];
  };
  while (i < input.length) {
    const c = input[i]!;
    if (quoted) {
      if (c === '"' && input[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i += 1;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === delimiter) endField();
    else if (c === '\n') endRow();
    else if (c === '\r' && input[i + 1] === '\n') {
      endRow();
      i += 1;
    } else field += c;
    i += 1;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}
