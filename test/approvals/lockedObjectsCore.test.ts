/** The pure core of the lock's object set: declared, stored, added, capped and raced loads. */
import t from 'tap';
import { createLockedObjects } from '../../plugins/approvals/lockedObjects.ts';

t.test('until the declared processes are loaded every object may lock', async (t) => {
  const locked = createLockedObjects({ declared: () => undefined, stored: async () => [] });
  t.equal(await locked.mayLock('e', 'anything'), true);
});

/** Lets a background load of the set finish. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('declared and stored objects lock, others do not; stored ones are read once per TTL', async (t) => {
  let clock = 0;
  let reads = 0;
  const stored = ['memo'];
  const locked = createLockedObjects({ declared: () => new Set(['project']), stored: async () => (reads++, [...stored]), ttlMs: 5_000, now: () => clock });
  t.equal(await locked.mayLock('e', 'ticket'), true, 'not known yet: the write is checked, and the set is read in the background');
  await settle();
  t.same([await locked.mayLock('e', 'project'), await locked.mayLock('e', 'memo'), await locked.mayLock('e', 'ticket')], [true, true, false]);
  stored.push('ticket');
  clock = 4_999;
  t.equal(await locked.mayLock('e', 'ticket'), false, 'within the TTL the cached set answers');
  t.equal(reads, 1);
  clock = 5_000;
  t.equal(await locked.mayLock('e', 'ticket'), true, 'after the TTL the write is checked and the stored processes are read again');
  await settle();
  t.equal(reads, 2);
  t.equal(await locked.mayLock('e', 'ticket'), true, 'the new set has it');
});

t.test('an added object locks at once; an invalidation reads again', async (t) => {
  const stored: string[] = [];
  const locked = createLockedObjects({ declared: () => new Set(), stored: async () => [...stored], now: () => 0 });
  await locked.mayLock('e', 'ticket');
  await settle();
  t.equal(await locked.mayLock('e', 'ticket'), false);
  locked.add('e', 'ticket');
  t.equal(await locked.mayLock('e', 'ticket'), true);
  await locked.mayLock('other', 'ticket');
  await settle();
  t.equal(await locked.mayLock('other', 'ticket'), false, 'per environment');
  stored.push('errand');
  locked.invalidate('e');
  t.equal(await locked.mayLock('e', 'errand'), true);
  await settle();
  t.equal(await locked.mayLock('e', 'errand'), true, 'read again');
});

t.test('a load that started before an add does not store its older set', async (t) => {
  let release: (objects: string[]) => void = () => undefined;
  let calls = 0;
  const locked = createLockedObjects({
    declared: () => new Set(),
    stored: () => (calls++ === 0 ? new Promise<string[]>((r) => { release = r; }) : new Promise<string[]>(() => undefined)),
    now: () => 0,
  });
  t.equal(await locked.mayLock('e', 'ticket'), true, 'a write while the set loads is checked');
  locked.add('e', 'ticket');
  release([]);
  await settle();
  t.equal(await locked.mayLock('e', 'ticket'), true, 'the stale read was not kept');
});

t.test('with as many stored processes as one read returns, every object may lock', async (t) => {
  const locked = createLockedObjects({ declared: () => new Set(), stored: async (_env, limit) => Array.from({ length: limit }, (_, i) => `o${i}`) });
  await locked.mayLock('e', 'ticket');
  await settle();
  t.equal(await locked.mayLock('e', 'ticket'), true);
});
