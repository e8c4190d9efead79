import { fileURLToPath } from 'node:url';
import type { ResolvedObject } from '../../metadata/types.ts';
import { loadApps } from '../../metadata/loadApps.ts';

/** The test app: a ticket with single-column indexes on status, priority and due_date, and (area, due_date). */
export const TICKETS_APP = fileURLToPath(new URL('./fixtures/tickets', import.meta.url));

export async function loadTicket(): Promise<ResolvedObject> {
  const { objects } = await loadApps([TICKETS_APP]);
  const ticket = objects.get('ticket');
  if (!ticket) throw new Error('the ticket fixture did not load');
  return ticket;
}
