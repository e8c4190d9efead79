/**
 * The checked connections of hosts chosen in settings (plugins/settings/settingsConnections.ts,
 * checkedLookup.ts): with 'deny' a name is resolved at each connection and refused when any of
 * its addresses is private, so a name that resolved to a public address at the settings write and
 * to the operator's network now (DNS rebinding) reaches nothing; a literal address is refused
 * before connecting; with 'allow' the same servers are reached. Real sockets and a real HTTP
 * server on loopback; only the name's resolution is given (a test cannot re-point real DNS).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { checkedLookup, HOST_REFUSED } from '../../plugins/settings/checkedLookup.ts';
import { settingsConnections } from '../../plugins/settings/settingsConnections.ts';

const NAMES: Record<string, Array<{ address: string; family: number }>> = {
  'public.example': [{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }],
  'rebound.example': [{ address: '127.0.0.1', family: 4 }],
  'mixed.example': [{ address: '93.184.215.14', family: 4 }, { address: '169.254.169.254', family: 4 }],
};
const lookupAll = async (host: string) => {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

const ask = (lookup: ReturnType<typeof checkedLookup>, host: string, options: { all?: boolean; family?: number }) =>
  new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => lookup(host, options, (error, address, family) => resolve({ error, address, family })));

t.test('checkedLookup: public names pass as a connection asks for them; any private address refuses the name', async (t) => {
  const refusals: unknown[] = [];
  const lookup = checkedLookup((r) => refusals.push(r), lookupAll);
  t.same(await ask(lookup, 'public.example', {}), { error: null, address: '93.184.215.14', family: 4 }, 'one address');
  t.same((await ask(lookup, 'public.example', { all: true })).address, NAMES['public.example'], 'every address (happy eyeballs)');
  t.same(await ask(lookup, 'public.example', { family: 6 }), { error: null, address: '2606:2800:220:1::1', family: 6 }, 'of the family asked');
  const rebound = await ask(lookup, 'rebound.example', {});
  t.equal(rebound.error?.code, HOST_REFUSED, 'a name resolving to loopback is refused');
  t.match(rebound.error?.message, /host 'rebound\.example' chosen in settings resolves to 127\.0\.0\.1, a loopback address/);
  const mixed = await ask(lookup, 'mixed.example', { all: true });
  t.equal(mixed.error?.code, HOST_REFUSED, 'one private address among public ones is enough');
  t.same(refusals, [
    { host: 'rebound.example', address: '127.0.0.1', range: 'a loopback address' },
    { host: 'mixed.example', address: '169.254.169.254', range: 'a link-local address (cloud metadata services answer at 169.254.169.254)' },
  ], 'each refusal is told, for the log');
  t.equal((await ask(lookup, 'nowhere.example', {})).error?.code, 'ENOTFOUND', 'a lookup failure stays what it is');
});

t.test("connections: 'deny' refuses names re-pointed to loopback and literal loopback addresses; 'allow' reaches them", async (t) => {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  // What the name resolves to now: the operator's loopback server.
  NAMES['rebound.test'] = [{ address: '127.0.0.1', family: 4 }];

  const refusals: string[] = [];
  const deny = settingsConnections('deny', (r) => refusals.push(`${r.host} ${r.address}`), lookupAll);
  t.equal(deny.checked, true);
  for (const url of [`http://rebound.test:${port}/by-name`, `http://127.0.0.1:${port}/literal`, `http://[::ffff:127.0.0.1]:${port}/mapped`]) {
    const error = await deny.fetch(url).then(() => null, (e: { cause?: { code?: string } }) => e);
    t.equal(error?.cause?.code, HOST_REFUSED, `fetch ${url}: refused (${String(error?.cause?.code)})`);
  }
  for (const host of ['rebound.test', '127.0.0.1', '[::1]']) {
    const error = await deny.connect(host, port, 2000).then((socket) => (socket.destroy(), null), (e: { code?: string }) => e);
    t.equal(error?.code, HOST_REFUSED, `connect ${host}: refused`);
  }
  t.same(seen, [], 'the server saw no request');
  t.same(refusals, ['rebound.test 127.0.0.1', '127.0.0.1 127.0.0.1', '::ffff:7f00:1 ::ffff:7f00:1', 'rebound.test 127.0.0.1', '127.0.0.1 127.0.0.1', '::1 ::1']);

  const allow = settingsConnections('allow', () => t.fail('nothing is refused under allow'));
  t.equal(allow.checked, false);
  const answer = await allow.fetch(`http://127.0.0.1:${port}/allowed`);
  t.equal(await answer.text(), 'reached', "fetch under 'allow' reaches the server");
  const socket = await allow.connect('127.0.0.1', port, 2000);
  t.equal(socket.remotePort, port, "connect under 'allow' connects");
  socket.destroy();
  t.same(seen, ['/allowed']);
});
