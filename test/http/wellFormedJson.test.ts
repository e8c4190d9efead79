/**
 * Every JSON document the runtime takes in is checked once at the edge (kernel/jsonLimits.ts):
 * a lone UTF-16 surrogate or nesting past MAX_BODY_DEPTH is 400 VALIDATION_ERROR on every route,
 * the auth engine's included, on both drivers, and nothing is written.
 */
import t from 'tap';
import type { Test } from 'tap';
import { signPayload } from '../../plugins/automation/verifySignature.ts';
import { onEachDriver, type Rest } from '../rest/restFixtures.ts';

const SECRET = 'well-formed-hook-secret';
process.env.OSR_TEST_ORDERS_HOOK_SECRET = SECRET;
const json = { 'content-type': 'application/json' };
const LONE = '{"title":"x\\ud800"}';
const deep = (n: number) => `{"email":${'['.repeat(n)}${']'.repeat(n)}}`;

function signed(body: string): Record<string, string> {
  const at = Math.floor(Date.now() / 1000);
  return { ...json, 'x-osr-signature': `t=${at},v1=${signPayload(SECRET, at, body)}` };
}

async function refused(t: Test, rest: Rest, name: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload: string | undefined, headers: Record<string, string>, path: string, limit?: string) {
  const res = await rest.send(method, url, payload, headers);
  t.equal(res.status, 400, `${name}: 400`);
  t.equal(res.body?.error?.code, 'VALIDATION_ERROR', `${name}: VALIDATION_ERROR`);
  const first = res.body?.error?.details?.errors?.[0];
  t.equal(first?.path, path, `${name}: names ${path}`);
  if (limit) t.same({ limit: first?.limit, max: first?.max }, { limit, max: 256 }, `${name}: names the limit`);
  else t.match(first?.message, /lone UTF-16 surrogate/, `${name}: says why`);
}

t.test('lone surrogates and deep documents are refused at the edge', (t) => onEachDriver(t, 'wellformed', async (t, rest) => {
  const memo = await rest.create('memo', { title: 'kept' });
  const before = await rest.snapshot('memo');
  await refused(t, rest, 'create of a history-tracked object', 'POST', '/api/v1/data/memo', LONE, json, 'body.title');
  await refused(t, rest, 'update of a history-tracked object', 'PATCH', `/api/v1/data/memo/${String(memo.id)}`, LONE, json, 'body.title');
  await refused(t, rest, 'a surrogate in a key', 'POST', '/api/v1/data/memo', '{"title":"x","\\udc00":1}', json, 'body.\ufffd');
  await refused(t, rest, 'batch', 'POST', '/api/v1/data/batch', `{"operations":[{"method":"POST","object":"memo","body":${LONE}}]}`, json, 'body.operations[0].body.title');
  await refused(t, rest, 'flow input', 'POST', '/api/v1/flows/order_received/start', '{"order":"A\\udfff"}', json, 'body.order');
  const hookBody = '{"order":"B\\ud83d"}';
  await refused(t, rest, 'hook input', 'POST', '/api/v1/automation/hooks/order_received/orders', hookBody, signed(hookBody), 'body.order');
  await refused(t, rest, 'a query parameter', 'GET', `/api/v1/data/memo?where=${encodeURIComponent('{"title":"\\ud800"}')}`, undefined, {}, 'where.title');
  const csv = JSON.stringify({ format: 'csv', csv: 'title,payload\nx,"[""\\ud800""]"\n' });
  const cell = await rest.send('POST', '/api/v1/data/sample/import', csv, json);
  t.equal(cell.status, 400, 'a json cell of a CSV import: 400');
  t.match(cell.body.error.details.first, /lone UTF-16 surrogate/, 'the row error says why');
  t.same(await rest.snapshot('memo'), before, 'nothing was written');

  const pair = await rest.send('POST', '/api/v1/data/memo', '{"title":"x\\ud83d\\ude00"}', json);
  t.equal(pair.status, 201, 'a surrogate pair is text like any other');
  t.equal(pair.body.title, 'x\u{1F600}', 'stored and answered as sent');
  const history = await rest.send('GET', `/api/v1/data/memo/${String(pair.body.id)}/history`);
  t.equal(history.body.items[0].changes.title.new, 'x\u{1F600}', 'its history entry too');

  for (const url of ['/api/v1/data/memo', '/api/v1/auth/sign-up/email', '/api/v1/auth/request-password-reset', '/api/v1/auth/forget-password', '/api/v1/auth/update-user', '/api/v1/auth/phone-number/send-otp']) {
    await refused(t, rest, `5,000 levels on ${url}`, 'POST', url, deep(5000), json, 'body', 'bodyDepth');
  }
  const fine = await rest.send('POST', '/api/v1/data/sample', JSON.stringify({ title: 'deep', payload: JSON.parse(`${'['.repeat(64)}${']'.repeat(64)}`) }), json);
  t.equal(fine.status, 201, 'a json field 64 levels deep is taken');

  const plain = await rest.send('POST', '/api/v1/data/memo', 'title=x', { 'content-type': 'text/plain' });
  t.equal(plain.status, 415, 'a text/plain body is 415');
  t.equal(plain.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
  t.equal(plain.body.error.details.contentType, 'text/plain');
}, { apps: ['metadata/apps/crm', 'test/rest/fixtures/records', 'test/rest/fixtures/limits', 'test/automation/fixtures/hooks-app'] }));
