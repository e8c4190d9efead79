/**
 * GET /realtime with one reader that stops reading (its socket paused) among 100 that keep up, on
 * SQLite: once its queue passes plugins.realtime.queueLimit it is sent `reset` (slow_consumer) and
 * dropped, while the 100 others receive every change, their delivery latency within what it is in
 * a run where nobody is slow (a ratio of the two runs' medians and 90th percentiles, not a time).
 * The slow reader shares its access group with five of the others (same caller, same fields).
 *
 * Whether it was dropped is seen from outside: the process serves at most 101 streams
 * (plugins.realtime.maxConnections), so a probe stream is refused (429) while the slow one is
 * open and admitted once it is gone. Its records are large (80 kB), so the operating system's
 * socket buffers fill with few changes.
 */
import http from 'node:http';
import t, { type Test } from 'tap';
import { bearer, signIn, sqliteSite } from '../auth/authHarness.ts';
import { openStream, type SseStream } from './sseClient.ts';

const OTHERS = 100;
/** Of the others, the ones that follow the whole record, as the slow reader does (its group). */
const WHOLE = 5;
const QUEUE_LIMIT = 20;
const BODY = 'b'.repeat(80_000);
const INTERVAL_MS = 50;
const CALM_WRITES = 50;
/** Writes after the slow reader was dropped, so the others' latency is measured after it too. */
const AFTER_DROP = 15;
/** The socket buffers hold a few megabytes: far fewer writes than this fill them. */
const MAX_WRITES = 400;
/** Bounds of the slow run's percentiles over the calm run's. */
const MAX_RATIO = { p50: 3, p90: 3 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** A stream whose socket is paused as soon as the answer's head arrives; `resume` reads the rest until the server closes it. */
interface PausedReader {
  status: number;
  resume(timeoutMs: number): Promise<string>;
}

function openPaused(url: string, headers: Record<string, string>): Promise<PausedReader> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.socket.pause();
      res.pause();
      resolve({
        status: res.statusCode ?? 0,
        resume: (timeoutMs) => new Promise((done, fail) => {
          const chunks: Buffer[] = [];
          const timer = setTimeout(() => fail(new Error(`the server did not close the slow stream within ${timeoutMs} ms`)), timeoutMs);
          const finish = () => {
            clearTimeout(timer);
            done(Buffer.concat(chunks).toString('utf8'));
          };
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.once('end', finish);
          res.once('close', finish);
          res.socket.resume();
          res.resume();
        }),
      });
    });
    request.on('error', reject);
  });
}

/** The events of a server-sent-events text: type and parsed data. */
function eventsOf(text: string): Array<{ event: string; data: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return text.split('\n\n').filter((block) => block.includes('data: ')).map((block) => ({
    event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message',
    data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!),
  }));
}

t.test('realtime: a reader that stops reading is dropped, the others keep their pace', async (t: Test) => {
  const site = sqliteSite(t, ['rt-slow']);
  const rt = await site.boot({
    config: {
      apps: ['test/realtime/fixtures/app'],
      server: { listen: true, port: 0, host: '127.0.0.1' },
      plugins: { email: { enabled: false }, auth: { rateLimit: { enabled: false } }, realtime: { queueLimit: QUEUE_LIMIT, maxConnections: OTHERS + 1, maxConnectionsPerUser: OTHERS + 10 } },
    } as never,
  });
  const admin = await signIn(rt);
  const headers = bearer(admin.token);
  const base = rt.runtime.http().url()!.replace(/\/$/, '');
  const wholeUrl = `${base}/api/v1/realtime?objects=feed_item`;
  const titleUrl = `${base}/api/v1/realtime?objects=feed_item&fields.feed_item=title`;

  const others: SseStream[] = [];
  t.teardown(() => others.forEach((s) => s.close()));
  for (let i = 0; i < OTHERS; i++) {
    const stream = await openStream(i < WHOLE ? wholeUrl : titleUrl, headers);
    if (stream.status !== 200) throw new Error(`stream ${i} answered ${stream.status}: ${JSON.stringify(stream.body)}`);
    others.push(stream);
  }
  await Promise.all(others.map((s) => s.next((e) => e.event === 'ready')));

  let serial = 0;
  /** One run of writes, one every INTERVAL_MS; with `slow`, a paused reader joins first. The others' latencies (ms). */
  const run = async (t: Test, slow: boolean): Promise<number[]> => {
    const sentAt = new Map<string, number>();
    const from = others.map((s) => s.events.length);
    const reader = slow ? await openPaused(wholeUrl, headers) : null;
    if (reader) t.equal(reader.status, 200, 'the slow reader\'s stream opens');
    if (reader) {
      const full = await openStream(titleUrl, headers);
      t.equal(full.status, 429, 'the process serves no more streams while it is open (the probe)');
    }
    let droppedAt: number | null = null;
    let last = '';
    for (let i = 0; i < MAX_WRITES; i++) {
      const slot = performance.now();
      last = `W${++serial}`;
      sentAt.set(last, slot);
      const res = await rt.inject({ method: 'POST', url: '/api/v1/data/feed_item', headers, payload: { title: last, body: BODY } });
      if (res.statusCode !== 201) throw new Error(`write ${last}: ${res.statusCode} ${res.body}`);
      if (reader && droppedAt === null) {
        const probe = await openStream(titleUrl, headers);
        if (probe.status === 200) {
          droppedAt = i + 1;
          probe.close();
        }
      }
      if (!reader && i + 1 >= CALM_WRITES) break;
      if (droppedAt !== null && i + 1 >= droppedAt + AFTER_DROP) break;
      await sleep(Math.max(0, slot + INTERVAL_MS - performance.now()));
    }
    if (reader) {
      t.ok(droppedAt !== null, `the slow reader was dropped (after ${droppedAt ?? 'none'} of ${MAX_WRITES} writes)`);
      const text = await reader.resume(10_000);
      const events = eventsOf(text);
      const created = events.filter((e) => e.event === 'created').length;
      t.same(events.at(-1), { event: 'reset', data: { reason: 'slow_consumer', message: 'This stream fell behind and was closed: read again, then reconnect without Last-Event-ID.' } }, 'its last event is reset: slow_consumer');
      t.ok(created < sentAt.size, `it received ${created} of the ${sentAt.size} changes made meanwhile`);
      await sleep(200);
    }
    // Every other stream receives every change, in order, and is still open.
    await Promise.all(others.map((s) => s.next((e) => e.data?.record?.title === last, 15_000)));
    const latencies: number[] = [];
    let complete = 0;
    others.forEach((stream, i) => {
      const titles: string[] = [];
      for (const event of stream.events.slice(from[i])) {
        if (event.event !== 'created') continue;
        const title = String(event.data.record.title);
        titles.push(title);
        const sent = sentAt.get(title);
        if (sent !== undefined) latencies.push(event.at - sent);
      }
      if (titles.join() === [...sentAt.keys()].join()) complete++;
    });
    t.equal(complete, OTHERS, `each of the ${OTHERS} others received all ${sentAt.size} changes, in order`);
    t.notOk(others.some((s) => s.events.some((e) => e.event === 'reset' || e.event === 'error')), 'none of the others was reset');
    return latencies;
  };

  const calm: number[] = [];
  const slowed: number[] = [];
  // Alternating, so the machine's load weighs on both alike.
  for (let round = 1; round <= 2; round++) {
    await t.test(`round ${round}: nobody slow`, async (t) => void calm.push(...(await run(t, false))));
    await t.test(`round ${round}: one reader stopped`, async (t) => void slowed.push(...(await run(t, true))));
  }
  const [c50, c90, s50, s90] = [percentile(calm, 50), percentile(calm, 90), percentile(slowed, 50), percentile(slowed, 90)];
  const summary = `calm p50 ${c50.toFixed(1)} ms p90 ${c90.toFixed(1)} ms (${calm.length} deliveries), with a slow reader p50 ${s50.toFixed(1)} ms p90 ${s90.toFixed(1)} ms (${slowed.length})`;
  t.ok(s50 / c50 <= MAX_RATIO.p50, `the others' median latency within ${MAX_RATIO.p50}x of the calm runs': ${(s50 / c50).toFixed(2)}x; ${summary}`);
  t.ok(s90 / c90 <= MAX_RATIO.p90, `their 90th percentile within ${MAX_RATIO.p90}x: ${(s90 / c90).toFixed(2)}x`);
});
