import type { FastifyRequest } from 'fastify';
import { badRequest } from './ioRequest.ts';
import { multipartBoundary, MultipartReader, type PartSink } from './MultipartReader.ts';
import type { Mapping } from './planColumns.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { CsvTable } from './readImportRows.ts';

/** Media types the import route reads as a stream, besides its JSON body. */
export const STREAMED_IMPORT_TYPES = ['text/csv', 'multipart/form-data'] as const;

/** The import's options in the query string (text/csv); fastify has checked their types. */
export interface ImportQuery {
  mapping?: string;
  dryRun?: boolean;
  atomic?: boolean;
}

export interface StreamedImport {
  table: CsvTable;
  mapping: Mapping;
  dryRun: boolean;
  atomic: boolean;
}

const OPTIONS = new Set(['mapping', 'dryRun', 'atomic']);
/** Bytes of one option form field: a mapping of a few hundred columns fits many times. */
const MAX_OPTION_BYTES = 64 * 1024;

/** `mapping` as sent in a query string or a form field: JSON text of { column: field or null }. */
export function mappingOf(text: string): Mapping {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    badRequest('mapping', 'must be JSON text of an object { "column": "field" or null }');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => v === null || typeof v === 'string')) {
    badRequest('mapping', 'must be an object whose values are field names or null');
  }
  return value as Mapping;
}

function flagOf(name: string, text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  return badRequest(name, 'must be true or false');
}

/** CSV bytes, decoded as UTF-8 across chunk boundaries, into a CsvTable as they arrive. */
function csvSink(table: CsvTable): PartSink {
  const reader = table.reader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (chunk?: Buffer): string => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      return badRequest('csv', 'is not UTF-8 text; save the file as UTF-8');
    }
  };
  return {
    data: (chunk) => reader.push(decode(chunk)),
    end: () => {
      reader.push(decode());
      reader.end();
    },
  };
}

/** A text form field, at most MAX_OPTION_BYTES. */
function fieldSink(name: string, fields: Map<string, string>): PartSink {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    data: (chunk) => {
      size += chunk.length;
      if (size > MAX_OPTION_BYTES) badRequest(name, `is longer than ${MAX_OPTION_BYTES} bytes`);
      chunks.push(chunk);
    },
    end: () => void fields.set(name, Buffer.concat(chunks).toString('utf8')),
  };
}

/**
 * A CSV import sent as `text/csv` (options in the query string) or as `multipart/form-data`
 * (the file in the part `csv`, options as the fields mapping, dryRun, atomic), read as it
 * arrives: the text is parsed record by record, and records past the row limit are only counted.
 */
export async function readStreamedImport(request: FastifyRequest, object: ResolvedObject): Promise<StreamedImport> {
  const contentType = String(request.headers['content-type'] ?? '');
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  const query = (request.query ?? {}) as ImportQuery;
  const body = request.body as AsyncIterable<Buffer>;
  const table = new CsvTable(object);
  if (media === 'text/csv') {
    const charset = /;\s*charset="?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii') badRequest('csv', `is sent as ${charset.slice(0, 40)}; send it as UTF-8 (charset=utf-8)`);
    const sink = csvSink(table);
    for await (const chunk of body) sink.data(chunk);
    sink.end();
    return { table, mapping: query.mapping === undefined ? {} : mappingOf(query.mapping), dryRun: query.dryRun ?? false, atomic: query.atomic ?? true };
  }
  const given = Object.keys(query);
  if (given.length > 0) badRequest(given[0]!, 'of a multipart import is a form field, not a query parameter');
  const fields = new Map<string, string>();
  let file = false;
  const reader = new MultipartReader(multipartBoundary(contentType), (part) => {
    if (part.name === 'csv') {
      if (file) badRequest('csv', 'is given twice; send one file per request');
      file = true;
      return csvSink(table);
    }
    if (!OPTIONS.has(part.name)) badRequest(part.name.slice(0, 100), 'is not a field of a CSV import; the form takes csv (the file), mapping, dryRun and atomic');
    if (fields.has(part.name)) badRequest(part.name, 'is given twice');
    return fieldSink(part.name, fields);
  });
  for await (const chunk of body) reader.push(chunk);
  reader.end();
  if (!file) badRequest('csv', 'is missing: send the file as the form field csv');
  const mapping = fields.get('mapping');
  const dryRun = fields.get('dryRun');
  const atomic = fields.get('atomic');
  return {
    table,
    mapping: mapping === undefined ? {} : mappingOf(mapping),
    dryRun: dryRun === undefined ? false : flagOf('dryRun', dryRun),
    atomic: atomic === undefined ? true : flagOf('atomic', atomic),
  };
}
