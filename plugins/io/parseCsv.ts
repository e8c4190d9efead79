import { CsvReader, type CsvRecord } from './CsvReader.ts';

export type { CsvRecord } from './CsvReader.ts';

/** A whole CSV text to records (see CsvReader for the dialect and the errors). */
export function parseCsv(input: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const reader = new CsvReader((record) => records.push(record));
  reader.push(input);
  reader.end();
  return records;
}
