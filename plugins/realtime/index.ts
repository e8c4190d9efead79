import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { AuthSession } from '../../capabilities/authSession.ts';
import { READS_ONLY } from '../../capabilities/dataDatabase.ts';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { ChangeFeed } from './changeFeed.ts';
import { realtimeOptionsSchema } from './realtimeOptions.ts';
import { addRealtimeRoute, StreamCounts } from './realtimeRoute.ts';
import type { RecordChange } from './recordChange.ts';
import { SubscriptionHub } from './subscriptionHub.ts';

/** The object of record shares (sharing): its writes change who may read the shared record. */
const RECORD_SHARE = 'sys_record_share';

/** How long a share's change waits after its commit, so every process reads with the new grants. */
const SHARE_SETTLE_MS = 50;

/** How often a process tells the others which objects its streams follow. */
const ANNOUNCE_MS = 2_000;

/** After the other plugins' after-hooks. */
const HOOK_PRIORITY = 1100;

interface State {
  auth: AuthSession;
  grants: AccessGrants | undefined;
  hub: SubscriptionHub;
  feed: ChangeFeed;
  counts: StreamCounts;
  timers: NodeJS.Timeout[];
}
const states = new WeakMap<object, State>();

/**
 * Realtime: `GET /realtime` streams record changes as server-sent events to every subscriber who
 * may read them, across processes (the events bus), each change checked once per access group.
 */
export default definePlugin({
  name: 'realtime',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'data.database', 'auth.session', 'metadata.registry', 'http.routes'],
  optional: ['events.bus', 'access.grants', 'data.writeTokens'],
  options: realtimeOptionsSchema,
  register(ctx) {
    const options = ctx.options;
    const engine = ctx.resolve('data.engine');
    const database = ctx.resolve('data.database');
    const writeTokens = ctx.resolve('data.writeTokens');
    // A newly followed object is announced to writers elsewhere at once, not at the next round.
    let feedRef: ChangeFeed | null = null;
    const hub = new SubscriptionHub(engine, ctx.log, { knownPerGroup: options.knownPerGroup, knownTotal: options.knownTotal, grouping: options.grouping }, (env, object) => feedRef?.announce(new Map([[env, [object]]])));
    const feed = new ChangeFeed(ctx.resolve('events.bus'), { replaySize: options.replay.size, replayAgeMs: options.replay.ageMs, announceMs: ANNOUNCE_MS }, (env, object) => hub.follows(env, object), (env) => hub.followsAny(env));
    feedRef = feed;
    feed.onChange((entry) => hub.changed(entry));
    const counts = new StreamCounts();
    const auth = ctx.resolve('auth.session');
    states.set(ctx, { auth, grants: ctx.resolve('access.grants'), hub, feed, counts, timers: [] });
    addRealtimeRoute(ctx.resolve('http.routes'), { engine, metadata: ctx.resolve('metadata.registry'), auth, hub, feed, options }, counts);

    // A write is announced once its transaction committed; a rolled-back one never is.
    const announce = (event: HookEvent, op: RecordChange['op'], record: DataRecord | undefined, delayMs = 0) => {
      if (!record) return;
      const env = event.ctx.environmentId;
      const version = op === 'deleted' || record.version == null ? null : Number(record.version);
      // Taken once committed: the engine counted the write in its token by then (heldTransaction.ts).
      const tell = () => feed.committed(env, event.object, String(record.id), op, version, writeTokens?.token(env));
      return database.withDatabase(env, async (db) => {
        void db.whenCommitted().then((committed) => {
          if (!committed) return;
          if (delayMs === 0) tell();
          else setTimeout(tell, delayMs).unref();
        });
      }, event.engine, READS_ONLY);
    };
    const appliesTo = (object: string, environmentId: string) => feed.interested(environmentId, object);
    ctx.hook('data.afterInsert', (event: HookEvent) => announce(event, 'created', event.record), { priority: HOOK_PRIORITY, batched: true, appliesTo });
    ctx.hook('data.afterUpdate', (event: HookEvent) => announce(event, 'updated', event.record ?? event.previous), { priority: HOOK_PRIORITY, appliesTo });
    ctx.hook('data.afterDelete', (event: HookEvent) => announce(event, 'deleted', event.previous), { priority: HOOK_PRIORITY, appliesTo });
    // A share opens or closes a record to its recipients: announced as an update of that record,
    // which each group then finds entered or left.
    const shared = (event: HookEvent, share: DataRecord | undefined) => {
      if (!share || typeof share.object !== 'string' || typeof share.record_id !== 'string') return;
      if (!feed.interested(event.ctx.environmentId, share.object)) return;
      // After the engine dropped its cached grants for the share (once the write answered), here and
      // (through access.changed, sent before this) in other processes.
      return announce({ ...event, object: share.object }, 'updated', { id: share.record_id, version: null }, SHARE_SETTLE_MS);
    };
    const sharesApply = (_object: string, environmentId: string) => feed.interestedInAny(environmentId);
    ctx.hook('data.afterInsert', (event: HookEvent) => shared(event, event.record), { object: RECORD_SHARE, priority: HOOK_PRIORITY, appliesTo: sharesApply });
    ctx.hook('data.afterUpdate', (event: HookEvent) => shared(event, event.record ?? event.previous), { object: RECORD_SHARE, priority: HOOK_PRIORITY, appliesTo: sharesApply });
    ctx.hook('data.afterDelete', (event: HookEvent) => shared(event, event.previous), { object: RECORD_SHARE, priority: HOOK_PRIORITY, appliesTo: sharesApply });
  },
  async ready(ctx) {
    const state = states.get(ctx)!;
    const { auth, grants, hub, feed, counts } = state;
    state.timers.push(
      setInterval(() => {
        for (const member of hub.members()) member.stream.heartbeat();
      }, ctx.options.heartbeatMs),
      setInterval(() => {
        void counts.recheckAll(auth, grants);
      }, ctx.options.recheckMs),
      setInterval(() => feed.announce(hub.followed()), ANNOUNCE_MS),
    );
    for (const timer of state.timers) timer.unref();
  },
  async stop(ctx) {
    const state = states.get(ctx);
    if (!state) return;
    for (const timer of state.timers) clearInterval(timer);
    state.hub.closeAll({ event: 'reset', data: { reason: 'shutdown', message: 'The server is stopping: reconnect.' } });
  },
});

/** The fields of the write events this plugin reads. */
interface HookEvent {
  object: string;
  ctx: { environmentId: string };
  engine: DataEngine;
  record?: DataRecord;
  previous?: DataRecord;
}
