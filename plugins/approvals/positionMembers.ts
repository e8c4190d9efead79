import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { PositionMembers } from './stepSlate.ts';

/** Users holding each named position now (validity windows applied), read as engine work. */
export async function positionMembers(engine: DataEngine, ctx: DataContext, names: readonly string[]): Promise<PositionMembers> {
  const out = new Map<string, string[]>();
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return out;
  const positions = await engine.query('sys_position', { where: { name: { $in: wanted } }, select: ['id', 'name'], limit: 200 }, ctx, { total: false });
  const nameOf = new Map(positions.items.map((p) => [String(p.id), String(p.name)]));
  if (nameOf.size === 0) return out;
  const now = Date.now();
  let cursor: string | undefined;
  // Bounded: at most 10 pages of 200 assignments.
  for (let page = 0; page < 10; page++) {
    const rows = await engine.query('sys_user_position', { where: { position: { $in: [...nameOf.keys()] } }, select: ['user_id', 'position', 'valid_from', 'valid_until'], limit: 200, ...(cursor ? { cursor } : {}) }, ctx, { total: false });
    for (const row of rows.items) {
      if (row.valid_from && Date.parse(String(row.valid_from)) > now) continue;
      if (row.valid_until && Date.parse(String(row.valid_until)) <= now) continue;
      const name = nameOf.get(String(row.position));
      if (!name) continue;
      const list = out.get(name) ?? [];
      list.push(String(row.user_id));
      out.set(name, list);
    }
    if (!rows.nextCursor) break;
    cursor = rows.nextCursor;
  }
  return out;
}
