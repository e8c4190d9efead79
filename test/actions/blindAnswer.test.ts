/**
 * An action's answer to a credential without data:read holds each record as its id and version,
 * at whatever depth the handler put it.
 */
import t from 'tap';
import { blindAnswer } from '../../plugins/actions/blindAnswer.ts';

const record = (id: string) => ({ id, version: 3, description: 'stored text', owner: 'u1' });

t.test('records at every depth become id and version', async (t) => {
  t.same(blindAnswer(record('a')), { id: 'a', version: 3 }, 'the answer itself');
  t.same(blindAnswer([record('a'), 7]), [{ id: 'a', version: 3 }, 7], 'items of a list answer');
  t.same(blindAnswer({ created: record('a'), count: 2 }), { created: { id: 'a', version: 3 }, count: 2 }, 'a value of the answer');
  const nested = blindAnswer({ summary: { first: record('a'), all: [record('b'), { inner: record('c') }] }, note: 'kept' });
  t.same(nested, { summary: { first: { id: 'a', version: 3 }, all: [{ id: 'b', version: 3 }, { inner: { id: 'c', version: 3 } }] }, note: 'kept' }, 'records nested in values and lists');
  t.notOk(JSON.stringify(nested).includes('stored text'), 'no stored value anywhere');
});

t.test('depth is bounded', async (t) => {
  let deep: unknown = record('z');
  for (let i = 0; i < 100; i++) deep = { next: deep };
  t.notOk(JSON.stringify(blindAnswer(deep)).includes('stored text'), 'a record past the depth bound is dropped, never answered whole');
  t.equal(blindAnswer('plain'), 'plain', 'a plain value stays');
  t.equal(blindAnswer(null), null, 'null stays');
});
