/** `osr doctor` lists the materialized datasets whose counts the database keeps, and says when none are. */
import t from 'tap';
import { checkMaterialized } from '../../cli/checkMaterialized.ts';
import { loadApps } from '../../metadata/loadApps.ts';

t.test('the doctor lists materialized datasets', async (t) => {
  const { errors, apps, objects } = await loadApps(['test/data/fixtures/rollup-app']);
  t.same(errors, []);
  t.same(checkMaterialized([...objects.values()], apps, 'additive'), { name: 'materialized datasets', ok: true, detail: '1: ticket_counts: ticket by status, priority in osr_rollup_ticket_counts' });
  t.match(checkMaterialized([...objects.values()], apps, 'off'), { ok: true, warning: true, detail: /schemaSync 'off': used only where an earlier boot made them as declared/ });
  const plain = await loadApps(['test/data/fixtures/fresh-app']);
  t.equal(checkMaterialized([...plain.objects.values()], plain.apps, 'additive'), null, 'no check without materialized datasets');
});
