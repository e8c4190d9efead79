/**
 * The first rows of a CSV file (RFC 4180: quoted fields, doubled quotes, CRLF/LF/CR), for the
 * import preview only: the server reads the whole file itself.
 */
export function previewCsv(text: string, maxRows: number): { header: string[]; rows: string[][] } {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length && records.length <= maxRows; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') { record.push(field); field = ''; }
    else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      field = '';
      if (record.length > 1 || record[0] !== '') records.push(record);
      record = [];
    } else field += c;
  }
  if (records.length <= maxRows && (field !== '' || record.length > 0)) { record.push(field); records.push(record); }
  const [header = [], ...rows] = records;
  return { header, rows: rows.slice(0, maxRows) };
}

/** `Due Date`, `due-date` and `DUE_DATE` compare equal, as the server's column matching does. */
export const normalizeColumn = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');
