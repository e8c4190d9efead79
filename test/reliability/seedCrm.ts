import type { CrmRuntime } from './reliabilityHarness.ts';

export interface SeededCrm {
  accounts: number;
  /** Ids of seeded records by object. */
  ids: Record<string, string[]>;
}

/** A few records of every CRM object, linked, so queries, joins and expands find rows. */
export async function seedCrm(crm: CrmRuntime): Promise<SeededCrm> {
  const ids: Record<string, string[]> = { account: [], contact: [], lead: [], opportunity: [], task: [] };
  const create = async (object: string, record: Record<string, unknown>) => {
    const r = await crm.send('POST', `/api/v1/data/${object}`, record);
    if (r.status !== 201) throw new Error(`seeding ${object} answered ${r.status}: ${r.text}`);
    ids[object]!.push(String(r.body.id));
    return String(r.body.id);
  };
  for (let i = 0; i < 6; i++) {
    const parent = ids.account![0];
    const account = await create('account', {
      name: `Seed ${i}`, industry: i % 2 ? 'technology' : 'finance', employees: i * 10, annual_revenue: i * 1000.5,
      segments: i % 2 ? ['smb'] : ['enterprise', 'public_sector'], active: i % 3 !== 0, customer_since: `2024-0${1 + i}-15`,
      ...(parent ? { parent_account: parent } : {}),
    });
    const contact = await create('contact', { first_name: `F${i}`, last_name: `L${i}`, email: `seed${i}@example.com`, account });
    await create('lead', { last_name: `Lead${i}`, company: `Lead Co ${i}`, email: `lead${i}@example.com`, estimated_value: i * 100 });
    await create('opportunity', { name: `Opp ${i}`, account, contact, close_date: `2025-0${1 + i}-01`, amount: i * 250 });
    await create('task', { subject: `Task ${i}`, account, contact, due_date: `2025-0${1 + i}-10` });
  }
  return { accounts: ids.account!.length, ids };
}
