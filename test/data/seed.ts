import type { Database } from '../../plugins/data/sql/openDatabase.ts';
import { formatAutonumber, recordToRow } from '../../plugins/data/sql/codec.ts';
import { syncSchema } from '../../plugins/data/sql/syncSchema.ts';
import { account, contact } from '../harness/fixtures.ts';

/** Accounts: every field type; a5 has no contacts (for right/full joins). */
export const ACCOUNTS = [
  { id: 'a1', name: 'Acme', industry: 'tech', revenue: 1000.5, employees: 50, active: true, founded: '2020-01-15', tags: ['red', 'blue'], meta: { x: 1 }, parent: null },
  { id: 'a2', name: 'Globex', industry: 'finance', revenue: 2500, employees: 200, active: false, founded: '2019-06-30', tags: ['blue'], meta: null, parent: 'a1' },
  { id: 'a3', name: 'Initech', industry: 'tech', revenue: null, employees: 10, active: true, founded: null, tags: [], meta: null, parent: 'a1' },
  { id: 'a4', name: 'Umbrella_Corp', industry: 'health', revenue: 300.25, employees: null, active: null, founded: '2021-12-31', tags: null, meta: { y: [1, 2] }, parent: 'a2' },
  { id: 'a5', name: 'Zeta', industry: null, revenue: 0, employees: 0, active: false, founded: '2026-03-01', tags: ['green'], meta: null, parent: null },
];

/** Contacts: nulls in every sortable column, a dangling lookup (c08 -> a9), Unicode and LIKE wildcards. */
export const CONTACTS = [
  { id: 'c01', name: 'Alice Smith', email: 'alice@acme.test', account: 'a1', score: 9.5, priority: 1, birthday: '1990-03-02', last_seen: '2026-03-02T10:00:00.000Z', notes: '100% sure', owner_id: 'u1' },
  { id: 'c02', name: 'Bob Jones', email: 'bob@globex.test', account: 'a2', score: 7, priority: 2, birthday: '1985-07-14', last_seen: '2026-03-08T23:30:00.000Z', notes: 'maybe', owner_id: 'u1' },
  { id: 'c03', name: 'carol smith', email: 'carol@initech.test', account: 'a1', score: null, priority: 3, birthday: null, last_seen: '2026-02-28T00:00:00.000Z', notes: null, owner_id: 'u1' },
  { id: 'c04', name: 'Dave', email: null, account: null, score: 4.25, priority: 1, birthday: '1992-12-31', last_seen: '2026-01-05T12:00:00.000Z', notes: 'call back_later', owner_id: 'u1' },
  { id: 'c05', name: 'Éva Szabó', email: 'eva@acme.test', account: 'a3', score: 8, priority: null, birthday: '2000-01-01', last_seen: null, notes: 'ÉCOLE', owner_id: 'u2' },
  { id: 'c06', name: 'Frank', email: 'frank@umbrella.test', account: 'a4', score: 9.5, priority: 2, birthday: '1979-05-20', last_seen: '2025-12-29T08:00:00.000Z', notes: null, owner_id: 'u2' },
  { id: 'c07', name: 'Grace', email: 'grace@globex.test', account: 'a2', score: 6, priority: 3, birthday: '1995-08-08', last_seen: '2026-03-31T23:59:59.999Z', notes: null, owner_id: 'u2' },
  { id: 'c08', name: 'Heidi', email: 'heidi@acme.test', account: 'a9', score: 7, priority: 2, birthday: '1988-02-29', last_seen: '2026-04-01T00:00:00.000Z', notes: null, owner_id: 'u2' },
];

/** Creates the tables and inserts the fixture rows through the codec, as the engine would. */
export async function seed(db: Database): Promise<void> {
  await syncSchema(db.knex, [account, contact]);
  const system = (i: number, owner: string) => {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    return { version: 1, created_at: at, updated_at: at, created_by: owner, updated_by: owner, owner_id: owner };
  };
  const accounts = ACCOUNTS.map((a, i) => ({
    ...recordToRow(account, { ...a, ...system(i, 'u1'), code: formatAutonumber(account.fields.code!.format, i + 1) }, db.dialect),
    code_seq: i + 1,
  }));
  await db.knex('account').insert(accounts);
  await db.knex('contact').insert(CONTACTS.map((c, i) => recordToRow(contact, { ...c, ...system(i, c.owner_id) }, db.dialect)));
}
