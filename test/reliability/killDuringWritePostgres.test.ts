/** SIGKILL during a burst of multi-record writes on PostgreSQL: see killDuringWrite.ts. */
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { killDuringWrite } from './killDuringWrite.ts';
import { requirePostgres } from './reliabilityHarness.ts';

const postgres = (await databaseCases()).find((c) => c.name === 'postgres')!;

t.test('postgres', { skip: postgres.skip }, async (t) => {
  await requirePostgres(t);
  await killDuringWrite(t, 'postgres');
});
