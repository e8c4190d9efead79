/** The heartbeat's rule (heartbeat.ts) and the freshness rule caches share (cacheFreshness.ts), without a server. */
import t from 'tap';
import { CacheFreshness } from '../../capabilities/cacheFreshness.ts';
import { createHeartbeat } from '../../plugins/events/heartbeat.ts';

t.test('trusted only while a heartbeat sent within the bound came back', async (t) => {
  let now = 0;
  const sent: string[] = [];
  let overdue = 0;
  const beat = createHeartbeat('test', async (token) => void sent.push(token), { overdue: () => overdue++, changed: () => undefined }, { intervalMs: 1e9, trustMs: 750, reconnectMs: 2000, now: () => now });
  t.equal(beat.live(), false, 'not live before connecting');
  beat.connected();
  t.equal(beat.live(), false, 'not live before the first heartbeat is back');
  beat.echo(sent.at(-1)!);
  t.equal(beat.live(), true, 'live once it is back');
  const epoch = beat.epoch();
  now = 751;
  t.equal(beat.live(), false, 'not live once the latest one back is older than the bound');
  beat.echo(sent.at(-1)!);
  t.equal(beat.live(), false, 'an old heartbeat coming back late proves nothing new');
  beat.echo('999');
  t.equal(beat.live(), false, 'a token never sent is ignored');
  beat.lost();
  t.equal(beat.live(), false, 'lost');
  t.equal(beat.epoch(), epoch + 1, 'lost: the epoch moves (caches forget)');
  beat.stop();
  t.equal(overdue, 0, 'no reconnect asked while the timer did not run');
});

t.test('CacheFreshness: a read that began before a change keeps nothing; an untrusted bus serves nothing', async (t) => {
  let trusted = true;
  let epoch = 0;
  let resets = 0;
  const fresh = new CacheFreshness({ trusted: () => trusted, epoch: () => epoch }, () => resets++);
  const mark = fresh.mark();
  t.equal(fresh.holds('e', mark), true, 'nothing changed: kept');
  fresh.changed('e');
  t.equal(fresh.holds('e', mark), false, 'changed after the mark: not kept');
  t.equal(fresh.holds('other', mark), true, 'other environments unaffected');
  trusted = false;
  t.equal(fresh.usable(), false, 'nothing served while the bus is not trusted');
  t.equal(fresh.holds('other', fresh.mark()), false, 'nor kept');
  trusted = true;
  const before = fresh.mark();
  epoch++;
  t.equal(fresh.usable(), true, 'trusted again');
  t.equal(resets, 1, 'after a lapse, everything remembered is dropped first');
  t.equal(fresh.holds('other', before), false, 'and a read begun before the lapse keeps nothing');
});
