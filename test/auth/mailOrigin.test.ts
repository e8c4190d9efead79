/** In production with email on, mailed links need plugins.auth.baseURL: the boot fails without it, naming the key. */
import t from 'tap';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { checkMailOrigin } from '../../plugins/auth/checkMailOrigin.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

const SECRET = 'mail-origin-secret-0123456789-0123456789';

const boot = async (config: RuntimeConfigInput, env: NodeJS.ProcessEnv) => {
  try {
    const rt = await startTestRuntime({ config: { auth: { secret: SECRET }, ...config }, env });
    await rt.close();
    return null;
  } catch (error) {
    return error as { code?: string; message?: string };
  }
};

t.test('the pure check', async (t) => {
  t.throws(() => checkMailOrigin({}, true, true), { code: 'CONFIG_INVALID', details: { path: 'plugins.auth.baseURL' } }, 'production, email on, no baseURL');
  t.doesNotThrow(() => checkMailOrigin({ baseURL: 'https://app.example.com' }, true, true), 'with baseURL');
  t.doesNotThrow(() => checkMailOrigin({}, true, false), 'without email');
  t.doesNotThrow(() => checkMailOrigin({}, false, true), 'outside production');
});

t.test('the boot', async (t) => {
  const production = { NODE_ENV: 'production' };
  const email = { enabled: true, provider: 'log' };
  const refused = await boot({ plugins: { email } }, production);
  t.equal(refused?.code, 'KERNEL_BOOT_FAILED', 'production with email and no baseURL does not boot');
  t.match(refused?.message, /Configuration is not valid at plugins\.auth\.baseURL: .*set plugins\.auth\.baseURL/, 'the error names the key to set');
  t.equal(await boot({ plugins: { email, auth: { baseURL: 'https://app.example.com' } } }, production), null, 'with baseURL it boots');
  t.equal(await boot({ plugins: { email: { enabled: false } } }, production), null, 'without email it boots');
  t.equal(await boot({ plugins: { email } }, {}), null, 'outside production the Host header still serves development');
});
