/** A shared retention contract: one window over several plugins' tables, declared alike by each. */
import t from 'tap';
import { RetentionStore } from '../../kernel/retentionStore.ts';
import { retentionWindows } from '../../plugins/lifecycle/retentionWindows.ts';

const part = (object: string, extra: object = {}) => ({
  name: 'system.activity', shared: true, object, description: 'activity', keepDays: 14, action: 'delete' as const, ageField: 'at', ...extra,
});

t.test('parts declared alike are one contract; one override sets them all', async (t) => {
  const store = new RetentionStore();
  store.add('jobs', part('sys_job'));
  store.add('automation', part('osr_hook_delivery'));
  t.same(store.contracts().map((c) => [c.name, c.plugin, c.object]), [['system.activity', 'jobs', 'sys_job'], ['system.activity', 'automation', 'osr_hook_delivery']]);
  const windows = retentionWindows(store.contracts(), { 'system.activity': 7 });
  t.same(windows.map((w) => [w.object, w.keepDays, w.overridden]), [['sys_job', 7, true], ['osr_hook_delivery', 7, true]]);
});

t.test('a part that differs, or a name taken without shared on both, fails', async (t) => {
  const store = new RetentionStore();
  store.add('jobs', part('sys_job'));
  t.throws(() => store.add('automation', part('osr_hook_delivery', { keepDays: 1 })), { code: 'KERNEL_INVALID_RETENTION', details: { path: 'keepDays' } });
  t.throws(() => store.add('automation', part('osr_hook_delivery', { action: 'archive' })), { code: 'KERNEL_INVALID_RETENTION', details: { path: 'action' } });
  t.throws(() => store.add('other', part('sys_job')), { code: 'KERNEL_INVALID_RETENTION', details: { path: 'object' } }, 'one table once');
  t.throws(() => store.add('automation', part('osr_hook_delivery', { shared: undefined })), { code: 'KERNEL_INVALID_RETENTION', details: { path: 'name' } });
  t.equal(store.contracts().length, 1, 'nothing refused was kept');
});

t.test('every part already declared is checked, not only the first', async (t) => {
  const store = new RetentionStore();
  store.add('jobs', part('sys_job'));
  store.add('automation', part('osr_hook_delivery'));
  t.throws(() => store.add('other', part('osr_hook_delivery')), { code: 'KERNEL_INVALID_RETENTION', details: { path: 'object', plugin: 'other' } }, "the second part's table, named again");
  store.add('flows', part('sys_flow_run'));
  t.same(store.contracts().map((c) => c.object), ['sys_job', 'osr_hook_delivery', 'sys_flow_run'], 'a third table joins the window');
  store.removePlugin('jobs');
  t.throws(() => store.add('other', part('sys_flow_run', { keepDays: 30 })), { code: 'KERNEL_INVALID_RETENTION', details: { path: 'keepDays' } }, 'with the first part gone, the others still hold the window');
  t.throws(() => store.add('other', part('sys_other', { shared: undefined })), { code: 'KERNEL_INVALID_RETENTION', details: { path: 'name' } });
});
