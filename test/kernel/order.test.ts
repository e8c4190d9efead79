/** Pure cores: plugin ordering, typo suggestions and the pre-flight check. */
import t from 'tap';
import type { AnyPlugin } from '../../kernel/index.ts';
import { orderPlugins } from '../../kernel/orderPlugins.ts';
import { suggest } from '../../kernel/suggest.ts';
import { entry, kernelOf, plugin } from './fixtures.ts';

/** Providers map as checkGraph builds it: token -> provider names. */
function providersOf(plugins: AnyPlugin[], kernel: string[] = []): Map<string, string[]> {
  const map = new Map<string, string[]>(kernel.map((token) => [token, ['kernel']]));
  for (const p of plugins) for (const token of p.provides ?? []) map.set(token, [...(map.get(token) ?? []), p.name]);
  return map;
}

const orderRows: Array<{ name: string; plugins: AnyPlugin[]; kernel?: string[]; order: string[] }> = [
  { name: 'no dependencies keep the given order', plugins: [plugin({ name: 'c' }), plugin({ name: 'a' }), plugin({ name: 'b' })], order: ['c', 'a', 'b'] },
  {
    name: 'a provider is pulled forward just before its first consumer',
    plugins: [plugin({ name: 'a', requires: ['x'] }), plugin({ name: 'b' }), plugin({ name: 'c', provides: ['x'] })],
    order: ['c', 'a', 'b'],
  },
  {
    name: 'a chain given backwards comes out forwards',
    plugins: [plugin({ name: 'rest', requires: ['routes'] }), plugin({ name: 'http', provides: ['routes'], requires: ['session'] }), plugin({ name: 'auth', provides: ['session'] })],
    order: ['auth', 'http', 'rest'],
  },
  {
    name: 'optional dependencies order too',
    plugins: [plugin({ name: 'a', optional: ['x'] }), plugin({ name: 'b', provides: ['x'] })],
    order: ['b', 'a'],
  },
  {
    name: 'kernel tokens, unknown tokens and a plugin requiring its own token add no edge',
    plugins: [plugin({ name: 'a', requires: ['hooks.registry', 'nobody', 'x'], provides: ['x'] }), plugin({ name: 'b' })],
    kernel: ['hooks.registry'],
    order: ['a', 'b'],
  },
  {
    name: 'a shared provider appears once',
    plugins: [plugin({ name: 'a', requires: ['x'] }), plugin({ name: 'b', requires: ['x'] }), plugin({ name: 'p', provides: ['x'] })],
    order: ['p', 'a', 'b'],
  },
];

for (const row of orderRows) {
  t.test(`orderPlugins: ${row.name}`, async (t) => {
    const result = orderPlugins(row.plugins, providersOf(row.plugins, row.kernel));
    t.same(result, { ok: true, order: row.order });
    t.same(orderPlugins(row.plugins, providersOf(row.plugins, row.kernel)), result, 'the same input gives the same order');
  });
}

const cycleRows: Array<{ name: string; plugins: AnyPlugin[]; cycle: string[] }> = [
  {
    name: 'three plugins in a ring',
    plugins: [
      plugin({ name: 'a', provides: ['x'], requires: ['y'] }),
      plugin({ name: 'b', provides: ['y'], requires: ['z'] }),
      plugin({ name: 'c', provides: ['z'], requires: ['x'] }),
    ],
    cycle: ["a (needs 'y')", "b (needs 'z')", "c (needs 'x')", 'a'],
  },
  {
    name: 'the path holds only the cycle, not the plugin that led to it',
    plugins: [
      plugin({ name: 'entry', requires: ['x'] }),
      plugin({ name: 'p', provides: ['x'], requires: ['y'] }),
      plugin({ name: 'q', provides: ['y'], optional: ['x'] }),
    ],
    cycle: ["p (needs 'y')", "q (needs 'x')", 'p'],
  },
];

for (const row of cycleRows) {
  t.test(`orderPlugins cycle: ${row.name}`, async (t) => {
    t.same(orderPlugins(row.plugins, providersOf(row.plugins)), { ok: false, cycle: row.cycle });
  });
}

const suggestRows: Array<[string, string[], string | null]> = [
  ['http.route', ['http.routes', 'auth.session'], 'http.routes'],
  ['htp.routes', ['http.routes', 'auth.session'], 'http.routes'],
  ['auth.sesion', ['http.routes', 'auth.session'], 'auth.session'],
  ['data.engin', ['data.engine', 'data.engines'], 'data.engine'],
  ['payments', ['http.routes', 'auth.session'], null],
  ['auth', ['auth.session'], null],
  ['http.routes', [], null],
];
for (const [value, candidates, expected] of suggestRows) {
  t.equal(suggest(value, candidates), expected, `suggest('${value}') is ${expected}`);
}

t.test('check() is the pure pre-flight: order and options, no plugin code', async (t) => {
  const kernel = kernelOf([
    entry({ name: 'rest', requires: ['auth.session'] }),
    entry({ name: 'auth', provides: ['auth.session'] }, { options: { mode: 'strict' } }),
  ]);
  const graph = kernel.check();
  t.same(graph.failures, []);
  t.same(graph.order, ['auth', 'rest']);
  t.same(graph.providers.get('auth.session'), ['auth']);
  t.same(graph.providers.get('hooks.registry'), ['kernel']);
  t.equal(graph.providers.has('runtime.info'), false, 'not served without runtimeInfo');
  t.same(graph.options.get('auth'), { mode: 'strict' });
  t.same(kernel.timeline, []);
});
