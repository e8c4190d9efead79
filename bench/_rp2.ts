import Sqlite from 'better-sqlite3';
import { createDatabaseTarget } from './databaseTarget.ts';
import { seed } from './seed.ts';
const target = await createDatabaseTarget('sqlite');
await seed(target, 100_000, () => undefined);
const w = new Sqlite(target.file!);
w.pragma('analysis_limit = 1000'); w.exec('pragma optimize = 0x10002');
console.log(w.prepare('select * from sqlite_stat1').all());
const db = new Sqlite(target.file!);
db.pragma('query_only = ON');
const cols = (db.prepare('select * from bench_item limit 1').columns()).map((c) => `"bench_item"."${c.name}" as "${c.name}"`).join(', ');
const q = (where: string) => db.prepare(`select ${cols} from bench_item ${where} order by "bench_item"."id" asc limit 51`).raw(true);
const variants: Array<[string, Sqlite.Statement, unknown[]]> = [
  ['admin', q(''), []],
  ['member bound', q(`where (("bench_item"."owner_id" = ?) or ("bench_item"."status" in (?, ?)))`), ['member', 'open', 'active']],
];
for (const [name, st, args] of variants) console.log(name, JSON.stringify(db.prepare('explain query plan ' + st.source).all(...args).map((r: any) => r.detail)));
function bench(name: string, f: () => unknown) { for (let i = 0; i < 500; i++) f(); const t = process.hrtime.bigint(); const n = 5000; for (let i = 0; i < n; i++) f(); console.log(name, (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(1), 'µs'); }
for (let k = 0; k < 3; k++) for (const [name, st, args] of variants) bench(name, () => st.all(...args));
db.close(); w.close();
await target.dispose();
