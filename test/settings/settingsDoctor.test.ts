/** `osr doctor`'s settings line: the precedence, the variables each namespace would read (those the config file names included), and the rule for providers chosen in settings. */
import t from 'tap';
import { checkSettings } from '../../cli/checkSettings.ts';

t.test('the settings check names the variables the config file points at', async (t) => {
  const config = {
    sms: { provider: 'twilio', twilio: { accountSidEnv: 'MY_SID', authTokenEnv: 'MY_TOKEN' } },
    plugins: { ai: { providers: [{ id: 'local', baseURL: 'http://127.0.0.1:11434/v1', apiKeyEnv: 'LOCAL_AI_KEY' }] } },
  };
  const check = checkSettings(config, { MY_SID: 'AC1', MY_TOKEN: 't', LOCAL_AI_KEY: 'k', OPENAI_API_KEY: 'sk', UNRELATED: 'x' });
  t.equal(check.ok, true);
  t.match(check.detail, /^per key, an environment's settings \(PUT \/api\/v1\/settings\/:namespace, tenant admins\) over the config file over environment variables; /);
  t.match(check.detail, /sms: config file yes, variables MY_SID MY_TOKEN;/, 'the variables sms.twilio names');
  t.match(check.detail, /ai: config file yes, variables OPENAI_API_KEY LOCAL_AI_KEY;/, 'and those of the ai providers');
  t.match(check.detail, /email: config file no, variables none;/);
  t.match(check.detail, /sms: provider or baseUrl; ai: a provider's baseURL\) gets only the credentials set there/, 'the rule for providers chosen in settings');
  t.notOk(check.detail.includes('UNRELATED'), 'no other variable');
});
