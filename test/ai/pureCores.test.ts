/** The pure parts of the ai plugin: providers from config and environment, and the per-user limits. */
import t from 'tap';
import { isCodedError } from '../../kernel/errors.ts';
import { resolveProviders } from '../../plugins/ai/resolveProviders.ts';
import { createUsageLimiter } from '../../plugins/ai/usageLimiter.ts';

t.test('providers from config and OPENAI_API_KEY', async (t) => {
  t.same(resolveProviders({ providers: [] }, {}), [], 'nothing configured: no provider');
  t.same(resolveProviders({ providers: [] }, { OPENAI_API_KEY: 'sk-1' }), [{ id: 'openai', baseURL: 'https://api.openai.com/v1', apiKey: 'sk-1', models: null }]);
  t.same(resolveProviders({ providers: [] }, { OPENAI_API_KEY: 'sk-1', OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1/' })[0]!.baseURL, 'http://127.0.0.1:8080/v1');
  const both = resolveProviders({ providers: [{ id: 'local', baseURL: 'http://h/v1', models: ['a'] }, { id: 'openai', baseURL: 'http://proxy/v1', apiKeyEnv: 'PROXY_KEY' }] }, { OPENAI_API_KEY: 'sk-1', PROXY_KEY: 'pk' });
  t.same(both.map((p) => [p.id, p.baseURL, p.apiKey, p.models]), [['local', 'http://h/v1', null, ['a']], ['openai', 'http://proxy/v1', 'pk', null]], 'a configured openai wins over OPENAI_API_KEY');

  let error: unknown;
  try {
    resolveProviders({ providers: [{ id: 'x', baseURL: 'http://h/v1', apiKeyEnv: 'X_KEY' }] }, { OTHER: 'sk-secret-value' });
  } catch (e) {
    error = e;
  }
  t.ok(isCodedError(error));
  t.equal((error as { code: string }).code, 'AI_NOT_CONFIGURED');
  t.match((error as Error).message, /X_KEY, which is not set/, 'names the variable');
  t.throws(() => resolveProviders({ providers: [{ id: 'x', baseURL: 'http://h/v1' }, { id: 'x', baseURL: 'http://g/v1' }] }, {}), { code: 'AI_NOT_CONFIGURED' }, 'ids are unique');
});

t.test('the limiter counts requests per minute and tokens per day, per user', async (t) => {
  let now = Date.UTC(2026, 0, 1, 10, 0, 30);
  const limiter = createUsageLimiter({ requestsPerMinute: 2, tokensPerDay: 100 }, () => now);
  limiter.admit('a');
  limiter.admit('a');
  t.throws(() => limiter.admit('a'), { code: 'RATE_LIMITED', details: { retryAfter: 30, limit: 'ai.requestsPerMinute' } });
  limiter.admit('b');
  now += 30_000;
  limiter.admit('a');
  limiter.spend('a', 100);
  t.throws(() => limiter.admit('a'), { code: 'RATE_LIMITED', details: { limit: 'ai.tokensPerDay' } });
  now = Date.UTC(2026, 0, 2, 0, 0, 1);
  limiter.admit('a');
  t.pass('a new day and minute start afresh');
});
