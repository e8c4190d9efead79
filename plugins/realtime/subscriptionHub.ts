import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { isCodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { EventStream, StreamEvent } from './eventStream.ts';
import type { ObjectSubscription } from './parseSubscription.ts';
import { principalKey } from './principalKey.ts';
import type { RecordChange } from './recordChange.ts';
import type { BufferedChange } from './replayBuffer.ts';

/** One open stream: its connection, the caller, and the access groups it belongs to. */
export interface Member {
  stream: EventStream;
  principal: Principal;
  environmentId: string;
  groups: Set<AccessGroup>;
}

/**
 * Streams that read the same thing (environment, object, what decides access, where, fields): a
 * change is checked once for all of them, with one read through the engine as one of them.
 */
export interface AccessGroup {
  key: string;
  environmentId: string;
  subscription: ObjectSubscription;
  ctx: DataContext;
  members: Set<Member>;
  /** Records this group was sent as readable, with the version sent (bounded; oldest forgotten first). */
  known: Map<string, number>;
}

export interface HubOptions {
  /** Records each group remembers having sent (for `updated` against `entered`, and `left`). */
  knownPerGroup: number;
  /** Records all groups of this process remember together; past it, the largest group forgets its oldest. */
  knownTotal: number;
  /**
   * False (a diagnostic): every stream is a group of its own, read once per change, with no
   * decision from the record's own values (bench/realtimeBench.ts: one check per subscriber).
   */
  grouping: boolean;
}

/** A changed record as a system read shows it: undefined when there is none, null when unread. */
type Stored = DataRecord | undefined | null;

const objectKey = (environmentId: string, object: string) => `${environmentId}\u0000${object}`;

/** The query one group runs for one changed record: that id, within the group's where, its fields. */
function recordQuery(group: AccessGroup, recordId: string): Record<string, unknown> {
  const { where, fields } = group.subscription;
  return {
    where: where ? { $and: [{ id: recordId }, where] } : { id: recordId },
    ...(fields ? { select: [...new Set(['id', 'version', ...fields])] } : {}),
    limit: 1,
  };
}

/**
 * Every open stream of this process, grouped by what decides their access. Changes of one object
 * are handled one after the other (per-record order holds), each group read at most once per
 * change, and what each group was sent is kept with the change for streams that resume.
 */
export class SubscriptionHub {
  private readonly groups = new Map<string, AccessGroup>();
  private readonly byObject = new Map<string, Set<AccessGroup>>();
  private readonly queues = new Map<string, Promise<void>>();
  /** Entries in every group's `known`, together. */
  private knownCount = 0;
  /** Streams joined, numbering each its own groups when grouping is off. */
  private joined = 0;

  constructor(
    private readonly engine: DataEngine, private readonly log: Logger, private readonly options: HubOptions,
    /** Called when a stream of this process starts following an object no other stream here follows. */
    private readonly onFollow: (environmentId: string, object: string) => void = () => {},
  ) {}

  /** Whether any stream of this process follows the object. */
  follows(environmentId: string, object: string): boolean {
    return (this.byObject.get(objectKey(environmentId, object))?.size ?? 0) > 0;
  }

  /** Whether any stream of this process follows an object of the environment. */
  followsAny(environmentId: string): boolean {
    for (const group of this.groups.values()) if (group.environmentId === environmentId) return true;
    return false;
  }

  /** The objects streams of this process follow, per environment. */
  followed(): Map<string, string[]> {
    const result = new Map<string, string[]>();
    for (const group of this.groups.values()) {
      const list = result.get(group.environmentId) ?? [];
      if (!list.includes(group.subscription.object)) list.push(group.subscription.object);
      result.set(group.environmentId, list);
    }
    return result;
  }

  get size(): number {
    let n = 0;
    for (const group of this.groups.values()) n += group.members.size;
    return n;
  }

  /**
   * Adds a stream for its subscriptions. With `replay` (the changes after its Last-Event-ID), what
   * it missed is sent first, inside each object's queue, before it receives live changes.
   */
  join(member: Member, subscriptions: readonly ObjectSubscription[], replay: readonly BufferedChange[] | undefined): Promise<void> {
    const pKey = principalKey(member.principal);
    const own = this.options.grouping ? null : ++this.joined;
    const joins = subscriptions.map((subscription) => {
      const key = JSON.stringify([member.environmentId, subscription.object, pKey, subscription.where ?? null, subscription.fields ?? null, own]);
      const okey = objectKey(member.environmentId, subscription.object);
      return this.enqueue(okey, async () => {
        let group = this.groups.get(key);
        if (!group) {
          group = { key, environmentId: member.environmentId, subscription, ctx: { environmentId: member.environmentId, principal: member.principal }, members: new Set(), known: new Map() };
          this.groups.set(key, group);
          const set = this.byObject.get(okey) ?? new Set();
          set.add(group);
          this.byObject.set(okey, set);
          if (set.size === 1) this.onFollow(member.environmentId, subscription.object);
        }
        if (replay) await this.replay(group, member, replay.filter((e) => e.change.environmentId === member.environmentId && e.change.object === subscription.object));
        if (member.stream.closed) return this.dropEmpty(group);
        group.members.add(member);
        member.groups.add(group);
      });
    });
    member.stream.onClose(() => this.leave(member));
    return Promise.all(joins).then(() => undefined);
  }

  /** A change every process learned of: each group following its object is read once and its streams sent the outcome. */
  changed(entry: BufferedChange): void {
    const { change } = entry;
    const okey = objectKey(change.environmentId, change.object);
    if (!this.byObject.get(okey)?.size) return;
    void this.enqueue(okey, async () => {
      const groups = [...(this.byObject.get(okey) ?? [])];
      let stored: Promise<Stored> | undefined;
      const storedRecord = () => (stored ??= this.readStored(change));
      await Promise.all(groups.map(async (group) => {
        const event = await this.evaluate(group, change, storedRecord);
        entry.outcomes.set(group.key, event ? event.event : null);
        if (event) for (const member of group.members) member.stream.send(event);
      }));
    });
  }

  /** Ends every stream (shutdown). */
  closeAll(last: StreamEvent): void {
    for (const group of [...this.groups.values()]) for (const member of [...group.members]) member.stream.end(last);
  }

  /** Every open stream, once. */
  members(): Member[] {
    const all = new Set<Member>();
    for (const group of this.groups.values()) for (const member of group.members) all.add(member);
    return [...all];
  }

  private async replay(group: AccessGroup, member: Member, entries: readonly BufferedChange[]): Promise<void> {
    for (const entry of entries) {
      if (member.stream.closed) return;
      const outcome = entry.outcomes.get(group.key);
      const { change } = entry;
      if (outcome === null) continue;
      if (outcome === 'deleted' || outcome === 'left') {
        this.forget(group, change.recordId);
        member.stream.send({ event: outcome, id: change.id, data: { object: change.object, id: change.recordId } });
        continue;
      }
      if (outcome === undefined && change.op === 'deleted') {
        // Whether this stream could read the deleted record is not known here: it reads again.
        member.stream.end({ event: 'reset', data: { reason: 'replay_unknown', message: 'What this stream missed cannot be replayed here: read again, then reconnect without Last-Event-ID.' } });
        return;
      }
      const record = await this.read(group, change);
      if (!record) continue;
      this.remember(group, change.recordId, Number(record.version));
      member.stream.send({ event: outcome ?? change.op, id: change.id, data: { object: change.object, record } });
    }
  }

  /**
   * The changed record as a system read shows it now (with the writer's token), read once per
   * change for every group that was not sent it: undefined when there is no such record, null when
   * it could not be read (each group then reads as itself).
   */
  private async readStored(change: RecordChange): Promise<Stored> {
    const ctx: DataContext = { environmentId: change.environmentId, principal: null, system: true, ...(change.token === undefined ? {} : { writeToken: change.token }) };
    try {
      // The engine's planned read by id: a list query naming the id would be planned once per record.
      return await this.engine.get(change.object, change.recordId, { findHooks: false }, ctx);
    } catch (error) {
      if (isCodedError(error) && error.code === 'NOT_FOUND') return undefined;
      this.log.warn({ err: error, object: change.object }, 'realtime: a changed record could not be read once for all groups');
      return null;
    }
  }

  private async evaluate(group: AccessGroup, change: RecordChange, storedRecord: () => Promise<Stored>): Promise<StreamEvent | null> {
    const { recordId } = change;
    const sent = group.known.get(recordId);
    const ref = { object: change.object, id: recordId };
    if (change.op === 'deleted') {
      if (sent === undefined) return null;
      this.forget(group, recordId);
      return { event: 'deleted', id: change.id, data: ref };
    }
    let record: DataRecord | undefined;
    try {
      // A record this group was not sent, which its scope or where rules out from the record's own
      // values (an owner, a share, a number), is not read as the group: nothing would be sent.
      // Only a group that was sent it may need `left`, and that needs its own read.
      if (sent === undefined && this.options.grouping) {
        const stored = await storedRecord();
        if (stored === undefined) return null;
        if (stored !== null && (await this.engine.outside(change.object, stored, group.subscription.where, group.ctx))) return null;
      }
      record = await this.read(group, change);
    } catch (error) {
      if (isCodedError(error) && (error.status === 401 || error.status === 403)) {
        // The group may no longer read the object: its streams reconnect and meet the refusal.
        for (const member of [...group.members]) member.stream.end({ event: 'reset', data: { reason: 'access_changed', message: 'What this stream may read changed: reconnect.' } });
        return null;
      }
      this.log.warn({ err: error, object: change.object }, 'realtime: a change could not be checked for a group');
      return null;
    }
    if (!record) {
      if (sent === undefined) return null;
      this.forget(group, recordId);
      return { event: 'left', id: change.id, data: ref };
    }
    const version = Number(record.version);
    if (sent === version) return null;
    this.remember(group, recordId, version);
    const event = sent !== undefined ? 'updated' : change.op === 'created' ? 'created' : 'entered';
    return { event, id: change.id, data: { object: change.object, record } };
  }

  /**
   * The record as the group may read it, after the change: with the writer's token, nothing
   * remembered before the write serves it. A group without a `where` reads by id, the engine's
   * planned read (its statement made once per object and caller, not once per changed record),
   * and keeps the fields it asked for from what that read shows; one with a `where` queries.
   */
  private async read(group: AccessGroup, change: RecordChange): Promise<DataRecord | undefined> {
    const ctx = change.token === undefined ? group.ctx : { ...group.ctx, writeToken: change.token };
    const { object, where, fields } = group.subscription;
    if (where) return (await this.engine.query(object, recordQuery(group, change.recordId), ctx, { total: false })).items[0];
    let record: DataRecord;
    try {
      record = await this.engine.get(object, change.recordId, {}, ctx);
    } catch (error) {
      if (isCodedError(error) && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
    if (!fields) return record;
    const kept: DataRecord = {};
    for (const name of ['id', 'version', ...fields]) if (Object.hasOwn(record, name)) kept[name] = record[name];
    return kept;
  }

  private remember(group: AccessGroup, recordId: string, version: number): void {
    this.forget(group, recordId);
    group.known.set(recordId, version);
    this.knownCount++;
    if (group.known.size > this.options.knownPerGroup) this.forgetOldest(group);
    if (this.knownCount > this.options.knownTotal) {
      let largest = group;
      for (const other of this.groups.values()) if (other.known.size > largest.known.size) largest = other;
      this.forgetOldest(largest);
    }
  }

  private forget(group: AccessGroup, recordId: string): void {
    if (group.known.delete(recordId)) this.knownCount--;
  }

  private forgetOldest(group: AccessGroup): void {
    const oldest = group.known.keys().next();
    if (!oldest.done) this.forget(group, oldest.value);
  }

  /** Records remembered by every group together (bounded by `knownTotal`). */
  get knownSize(): number {
    return this.knownCount;
  }

  private leave(member: Member): void {
    for (const group of member.groups) {
      group.members.delete(member);
      this.dropEmpty(group);
    }
    member.groups.clear();
  }

  private dropEmpty(group: AccessGroup): void {
    if (group.members.size > 0 || !this.groups.has(group.key)) return;
    this.groups.delete(group.key);
    this.knownCount -= group.known.size;
    group.known.clear();
    const okey = objectKey(group.environmentId, group.subscription.object);
    const set = this.byObject.get(okey);
    set?.delete(group);
    if (set && set.size === 0) this.byObject.delete(okey);
  }

  private enqueue(okey: string, work: () => Promise<void>): Promise<void> {
    const next = (this.queues.get(okey) ?? Promise.resolve()).then(work).catch((error) => this.log.error({ err: error }, 'realtime: handling a change failed'));
    this.queues.set(okey, next);
    void next.then(() => {
      if (this.queues.get(okey) === next) this.queues.delete(okey);
    });
    return next;
  }
}
