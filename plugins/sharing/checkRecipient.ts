import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import { codedError } from '../../kernel/errors.ts';

const POSITION = 'sys_position';

/**
 * A share or rule whose recipient is a position (or a unit, a position and those below it) must
 * name a position that exists: one naming nothing would open the records to whoever later gets a
 * position with that id, and says nothing useful meanwhile. Other recipient types and missing
 * values are left to the object's own validation.
 */
export async function checkRecipient(engine: DataEngine, input: Record<string, unknown>, ctx: DataContext): Promise<void> {
  const { recipient_type: type, recipient_id: id } = input;
  if ((type !== 'position' && type !== 'unit_and_subordinates') || typeof id !== 'string' || id === '') return;
  const found = await engine.query(POSITION, { where: { id }, select: ['id'], limit: 1 }, { ...ctx, system: true }, { total: false });
  if (found.items.length === 0) {
    const message = `no position has id '${id.slice(0, 64)}' (recipient_id of a ${type} recipient is the id of a sys_position record)`;
    throw codedError('VALIDATION_ERROR', { summary: `recipient_id: ${message}`, errors: [{ path: 'recipient_id', message }] });
  }
}
