/**
 * Reads that a cache could answer stale, checked in one runtime after a write in another: the list
 * page and its total (the same query every time, so it is remembered), an aggregation, and a read
 * by id of a record the writer just changed.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';

interface Runtime {
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
}

export interface FreshReads {
  /** The writer creates a record and changes the fixed one; answers what the reader must then see. */
  write(trial: number): Promise<Expected>;
  /** Which of the reader's answers are stale (empty: all fresh). */
  stale(expected: Expected): Promise<string[]>;
}

export interface Expected {
  code: string;
  count: number;
  fixed: string;
}

/** On the `tag` object (code, unique): `writer` writes, `reader` reads, each with its own headers. */
export async function freshReads(writer: Runtime, writerHeaders: Record<string, string>, reader: Runtime, readerHeaders: Record<string, string>): Promise<FreshReads> {
  const created = await writer.inject({ method: 'POST', url: '/api/v1/data/tag', headers: writerHeaders, payload: { code: 'fixed-0' } });
  if (created.statusCode !== 201) throw new Error(`the fixed record: ${created.statusCode} ${created.body}`);
  const fixedId = String(created.json().id);
  let count = (await writer.inject({ url: '/api/v1/data/tag?limit=1', headers: writerHeaders })).json().total as number;
  const list = () => reader.inject({ url: '/api/v1/data/tag?limit=20&orderBy=-id', headers: readerHeaders });
  const aggregate = () => reader.inject({ method: 'POST', url: '/api/v1/data/tag/query', headers: readerHeaders, payload: { aggregations: [{ function: 'count', alias: 'n' }] } });
  const byId = () => reader.inject({ url: `/api/v1/data/tag/${fixedId}`, headers: readerHeaders });
  // Warm: each read answered once, so the reader may remember it.
  await Promise.all([list(), aggregate(), byId()]);
  return {
    async write(trial) {
      const code = `t-${trial}-${Math.random().toString(36).slice(2, 8)}`;
      const made = await writer.inject({ method: 'POST', url: '/api/v1/data/tag', headers: writerHeaders, payload: { code } });
      if (made.statusCode !== 201) throw new Error(`create: ${made.statusCode} ${made.body}`);
      count++;
      const fixed = `fixed-${code}`;
      const patched = await writer.inject({ method: 'PATCH', url: `/api/v1/data/tag/${fixedId}`, headers: writerHeaders, payload: { code: fixed } });
      if (patched.statusCode !== 200) throw new Error(`patch: ${patched.statusCode} ${patched.body}`);
      return { code, count, fixed };
    },
    async stale(expected) {
      const [page, groups, record] = await Promise.all([list(), aggregate(), byId()]);
      const out: string[] = [];
      const body = page.json() as { items: Array<{ code: string }>; total: number };
      if (!body.items.some((item) => item.code === expected.code)) out.push('list');
      if (body.total !== expected.count) out.push('total');
      if (Number((groups.json() as { items: Array<{ n: unknown }> }).items[0]?.n) !== expected.count) out.push('aggregate');
      if ((record.json() as { code?: string }).code !== expected.fixed) out.push('by id');
      return out;
    },
  };
}
