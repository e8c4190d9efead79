/**
 * fast-check generators that follow the metadata: values of each field's type and operators its
 * type accepts, so that most queries and records pass validation and reach the compiler and the
 * driver, with values at the edges of what each driver stores.
 */
import fc from 'fast-check';
import type { ResolvedField, ResolvedObject } from '../../metadata/types.ts';
import { CRM_OBJECTS, nasty } from './fuzzArbitraries.ts';

/** A value of the field's type, from the ordinary to the edge of what each driver stores. */
function typedValue(field: ResolvedField | undefined, type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 31));
    case 'number': case 'currency': case 'percent':
      return fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1e308, -1e308, 1e-300, 0.5, 99999999999999.9999, 1e15));
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc.oneof(fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)), fc.constantFrom('0001-01-01', '9999-12-31', '2024-02-29'));
    case 'datetime':
      return fc.oneof(fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString()), fc.constantFrom('2025-06-01T10:00:00+14:00', '2025-06-01 10:00', '2025-06-01', '9999-12-31T23:59:59.999-12:00'));
    case 'select': case 'multiselect':
      return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(field?.optionValues ?? ['x'])) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) });
    case 'lookup':
      return fc.oneof(fc.uuid(), fc.string({ maxLength: 10 }));
    case 'json':
      return fc.constant(null);
    case 'email':
      return fc.oneof({ weight: 4, arbitrary: fc.tuple(fc.stringMatching(/^[a-z0-9._]{1,12}$/), fc.integer({ min: 0, max: 1e6 })).map(([local, n]) => `${local}${n}@example.com`) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) });
    case 'url':
      return fc.oneof({ weight: 4, arbitrary: fc.webUrl() }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) });
    case 'phone':
      return fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^\+?[0-9 ]{4,15}$/) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) });
    default:
      return fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 30 }), nasty.filter((s) => !s.includes('\u0000')), fc.constantFrom('%', '_', '\\%', '\\'));
  }
}

const OPERATORS_BY_FAMILY: Record<string, string[]> = {
  text: ['$eq', '$ne', '$gt', '$lt', '$in', '$nin', '$contains', '$notContains', '$startsWith', '$endsWith', '$null'],
  number: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$between', '$in', '$nin', '$null'],
  boolean: ['$eq', '$ne', '$null'],
  date: ['$eq', '$gt', '$lte', '$between', '$in', '$null'],
  multiselect: ['$contains', '$notContains', '$null'],
  json: ['$null', '$exists'],
};

function familyOfType(type: string): string {
  if (['integer', 'number', 'currency', 'percent'].includes(type)) return 'number';
  if (type === 'date' || type === 'datetime') return 'date';
  if (type === 'boolean' || type === 'multiselect' || type === 'json') return type;
  return 'text';
}

/** Stored fields of an object with their types (system fields included, formulas left out). */
function storedFields(object: ResolvedObject): Array<{ name: string; type: string; field?: ResolvedField }> {
  const system = [['id', 'text'], ['version', 'integer'], ['created_at', 'datetime'], ['updated_at', 'datetime'], ['owner_id', 'text']] as const;
  return [
    ...system.map(([name, type]) => ({ name, type })),
    ...Object.entries(object.fields).filter(([, f]) => f.type !== 'formula').map(([name, field]) => ({ name, type: field.type === 'autonumber' ? 'text' : field.type, field })),
  ];
}

function typedLeaf(object: ResolvedObject): fc.Arbitrary<unknown> {
  return fc.constantFrom(...storedFields(object)).chain(({ name, type, field }) => {
    const v = typedValue(field, type);
    return fc.constantFrom(...OPERATORS_BY_FAMILY[familyOfType(type)]!).chain((op): fc.Arbitrary<unknown> => {
      if (op === '$in' || op === '$nin') return fc.array(v, { maxLength: 4 }).map((list) => ({ [name]: { [op]: list } }));
      if (op === '$between') return fc.tuple(v, v).map((pair) => ({ [name]: { [op]: pair } }));
      if (op === '$null' || op === '$exists') return fc.boolean().map((b) => ({ [name]: { [op]: b } }));
      if (['$contains', '$notContains', '$startsWith', '$endsWith'].includes(op)) return typedValue(field, type === 'multiselect' ? 'multiselect' : 'text').map((s) => ({ [name]: { [op]: s } }));
      return v.map((x) => ({ [name]: { [op]: x } }));
    });
  });
}

function typedCondition(object: ResolvedObject): fc.Arbitrary<unknown> {
  return fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      typedLeaf(object),
      fc.record({ $and: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ $or: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ $not: tie('node') }),
    ),
  })).node;
}

/** A query on one object that mostly passes validation, so it reaches the compiler and the driver. */
export function typedQuery(object: ResolvedObject): fc.Arbitrary<Record<string, unknown>> {
  const fields = storedFields(object);
  const sortable = fields.filter((f) => f.type !== 'json' && f.type !== 'multiselect').map((f) => f.name);
  const groupable = fields.filter((f) => ['select', 'boolean', 'date', 'integer', 'text'].includes(f.type) && f.name !== 'id').map((f) => f.name);
  const numeric = fields.filter((f) => familyOfType(f.type) === 'number').map((f) => f.name);
  const lookups = fields.filter((f) => f.type === 'lookup').map((f) => f.name);
  const list = (names: string[], max: number) => fc.uniqueArray(fc.constantFrom(...names), { maxLength: max });
  const records = fc.record({
    where: typedCondition(object),
    orderBy: list(sortable, 3).chain((names) => fc.array(fc.boolean(), { minLength: names.length, maxLength: names.length }).map((desc) => names.map((n, i) => (desc[i] ? `-${n}` : n)).join(','))),
    select: list(fields.map((f) => f.name), 5).map((names) => names.join(',')),
    limit: fc.integer({ min: 1, max: object.maxPageSize }),
    offset: fc.integer({ min: 0, max: 20 }),
    ...(lookups.length > 0 ? { expand: list(lookups, 2).map((names) => names.join(',')) } : {}),
  }, { requiredKeys: [] });
  const grouped = fc.record({
    where: typedCondition(object),
    groupBy: list(groupable, 2).filter((g) => g.length > 0),
    aggregations: fc.array(fc.oneof(
      fc.constant({ function: 'count', alias: 'n' }),
      ...(numeric.length > 0 ? [fc.constantFrom(...numeric).chain((field) => fc.constantFrom('sum', 'avg', 'min', 'max').map((fn) => ({ function: fn, field, alias: `${fn}_v` })))] : []),
    ), { minLength: 1, maxLength: 1 }),
    limit: fc.integer({ min: 1, max: 50 }),
  }, { requiredKeys: ['groupBy', 'aggregations'] });
  return fc.oneof({ weight: 4, arbitrary: records }, { weight: 1, arbitrary: grouped });
}

/** [object name, typed query] over the CRM objects. */
export const typedObjectQuery: fc.Arbitrary<[string, Record<string, unknown>]> = fc.constantFrom(...CRM_OBJECTS.values())
  .chain((object) => typedQuery(object).map((q): [string, Record<string, unknown>] => [object.name, q]));

/** [object name, record] with values of each field's type, as a create or a patch sends them. */
export const typedRecord: fc.Arbitrary<[string, Record<string, unknown>]> = fc.constantFrom(...CRM_OBJECTS.values()).chain((object) => {
  const writable = Object.entries(object.fields).filter(([, f]) => f.type !== 'formula' && f.type !== 'autonumber' && !f.readonly);
  const required = writable.filter(([, f]) => f.required);
  // Required fields most of the time, so that many records get stored and reach the driver.
  return fc.tuple(fc.uniqueArray(fc.constantFrom(...writable), { maxLength: 6, selector: ([name]) => name }), fc.integer({ min: 0, max: 4 }))
    .map(([picked, roll]) => (roll === 0 ? picked : [...required, ...picked.filter(([name]) => !required.some(([r]) => r === name))]))
    .chain((chosen) => fc.tuple(...chosen.map(([name, field]) => typedValue(field, field.type === 'multiselect' ? 'multiselect' : field.type)
      .map((v) => [name, field.type === 'multiselect' ? [v] : v] as const))))
    .map((pairs): [string, Record<string, unknown>] => [object.name, Object.fromEntries(pairs)]);
});
