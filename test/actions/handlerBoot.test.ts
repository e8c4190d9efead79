/** Handler actions at boot: a declared handler with no function, or a function for no declared handler, fails the boot naming the action and the fix. */
import t from 'tap';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

const ORPHAN = 'test/actions/fixtures/orphan';

const handlerFor = (name: string) => definePlugin({
  name: 'notifier',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['actions.registry'],
  register(ctx) {
    ctx.resolve('actions.registry').handle(name, () => ({ notified: true }));
  },
});

const boot = (plugins: ReturnType<typeof handlerFor>[]) => startTestRuntime({
  config: { apps: [ORPHAN], api: { requireAuth: false } },
  builtins: [...BUILTIN_PLUGINS, ...plugins.map((manifest) => ({ manifest, enabledByDefault: true }))],
});

t.test('a declared handler action without a registered handler fails the boot, naming the action and the fix', async (t) => {
  const error = await boot([]).then(() => null, (e: unknown) => e as { code?: string; message?: string });
  t.equal(error?.code, 'KERNEL_BOOT_FAILED');
  t.match(error?.message, /\[ACTION_HANDLER_MISSING\] Action 'notify_team' \(.*notify_team\.json\) runs a handler, but no plugin registered one/);
  t.match(error?.message, /ctx\.resolve\('actions\.registry'\)\.handle\('notify_team', fn\)/);
});

t.test('a handler for an action that is not declared as one fails the boot', async (t) => {
  const error = await boot([handlerFor('notify_tem')]).then(() => null, (e: unknown) => e as { code?: string; message?: string });
  t.equal(error?.code, 'KERNEL_BOOT_FAILED');
  t.match(error?.message, /\[ACTION_HANDLER_UNDECLARED\] A handler was registered for action 'notify_tem', but no action 'notify_tem' is declared/);
});

t.test('with its handler registered the action boots and runs', async (t) => {
  const rt = await boot([handlerFor('notify_team')]);
  t.teardown(() => rt.close());
  const anonymous = await rt.inject({ method: 'POST', url: '/api/v1/actions/notify_team', payload: {} });
  t.equal(anonymous.statusCode, 401, 'an action always needs a caller');
  t.equal(anonymous.json().error.code, 'UNAUTHENTICATED');
});

t.test('actions declared while the actions plugin is disabled fail the boot, naming each action', async (t) => {
  const error = await startTestRuntime({ config: { apps: ['metadata/apps/crm'], plugins: { actions: { enabled: false } } } })
    .then(() => null, (e: unknown) => e as { code?: string; message?: string });
  t.equal(error?.code, 'KERNEL_BOOT_FAILED');
  t.match(error?.message, /\[METADATA_INVALID\] Metadata is not valid in .*close_task\.json at name: action 'close_task' is declared, but the actions plugin that serves actions is disabled/);
});
