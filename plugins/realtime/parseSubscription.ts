import { codedError } from '../../kernel/errors.ts';

/** What one stream asks for, per object: an optional structured-query `where` and field list. */
export interface ObjectSubscription {
  object: string;
  where?: Record<string, unknown>;
  fields?: string[];
}

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** A `where` longer than this is refused before it is parsed (its cost is then checked as on /data). */
export const MAX_WHERE_LENGTH = 4_000;

function invalid(path: string, message: string): never {
  throw codedError('VALIDATION_ERROR', { summary: `${path}: ${message}`, errors: [{ path, message }] });
}

/**
 * The subscriptions of `GET /realtime`: `objects=task,deal`, then per object `where.<object>` (JSON
 * of the structured query's where) and `fields.<object>` (comma-separated). At most `maxObjects`;
 * a where or fields key naming an object not listed is refused.
 */
export function parseSubscription(query: Record<string, unknown>, maxObjects: number): ObjectSubscription[] {
  const listed = typeof query.objects === 'string' ? query.objects.split(',').map((s) => s.trim()).filter(Boolean) : [];
  if (listed.length === 0) invalid('querystring/objects', 'name the objects to follow, comma-separated: ?objects=task,deal');
  const objects = [...new Set(listed)];
  if (objects.length > maxObjects) invalid('querystring/objects', `at most ${maxObjects} objects per stream (plugins.realtime.maxObjects)`);
  for (const name of objects) if (!NAME.test(name)) invalid('querystring/objects', `'${name.slice(0, 70)}' is not an object name`);
  for (const key of Object.keys(query)) {
    if (key === 'objects' || key === 'lastEventId') continue;
    const match = /^(where|fields)\.(.+)$/.exec(key);
    if (!match) invalid(`querystring/${key.slice(0, 70)}`, 'unknown parameter: use objects, where.<object>, fields.<object> or lastEventId');
    if (!objects.includes(match[2]!)) invalid(`querystring/${key.slice(0, 70)}`, `'${match[2]!.slice(0, 70)}' is not among objects`);
  }
  return objects.map((object) => {
    const subscription: ObjectSubscription = { object };
    const where = query[`where.${object}`];
    if (where !== undefined) {
      if (typeof where !== 'string' || where.length > MAX_WHERE_LENGTH) invalid(`querystring/where.${object}`, `a JSON object of at most ${MAX_WHERE_LENGTH} characters`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(where);
      } catch {
        invalid(`querystring/where.${object}`, 'not valid JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) invalid(`querystring/where.${object}`, 'a JSON object (the where of the structured query)');
      subscription.where = parsed as Record<string, unknown>;
    }
    const fields = query[`fields.${object}`];
    if (fields !== undefined) {
      if (typeof fields !== 'string') invalid(`querystring/fields.${object}`, 'a comma-separated list of field names');
      const names = fields.split(',').map((s) => s.trim()).filter(Boolean);
      if (names.length === 0 || names.length > 200) invalid(`querystring/fields.${object}`, 'between 1 and 200 field names');
      subscription.fields = [...new Set(names)];
    }
    return subscription;
  });
}
