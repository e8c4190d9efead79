import { Environment } from '@marcbachmann/cel-js';
import { SYSTEM_FIELDS, type FieldDefinition } from '../types.ts';
import { clockNow } from './clock.ts';
import { addDays, addMonths, daysBetween, startOfUtcDay } from './dateFunctions.ts';
import { SYSTEM_FIELD_CEL_TYPES, TIMESTAMP, fieldCelType } from './celTypes.ts';

/** The functions this runtime adds to CEL, with the signature shown in error messages. */
export const RUNTIME_FUNCTIONS = [
  'today()', 'now()', 'daysBetween(from, to)', 'daysFromNow(date)', 'addDays(date, days)', 'addMonths(date, months)',
] as const;

function createBaseEnvironment(): Environment {
  return new Environment()
    .registerVariable('user', 'dyn', { description: 'The current user, for row policies' })
    .registerFunction(`today(): ${TIMESTAMP}`, () => startOfUtcDay(clockNow()), { description: 'Midnight UTC of the current day' })
    .registerFunction(`now(): ${TIMESTAMP}`, () => new Date(clockNow().getTime()), { description: 'The current instant' })
    .registerFunction(`daysBetween(${TIMESTAMP}, ${TIMESTAMP}): int`, (from: Date, to: Date) => BigInt(daysBetween(from, to)), { description: 'Whole calendar days from the first date to the second' })
    .registerFunction(`daysFromNow(${TIMESTAMP}): int`, (date: Date) => BigInt(daysBetween(clockNow(), date)), { description: 'Whole calendar days from today to the date; negative when past' })
    .registerFunction(`addDays(${TIMESTAMP}, int): ${TIMESTAMP}`, (date: Date, days: bigint) => addDays(date, Number(days)), { description: 'The date shifted by a number of days' })
    .registerFunction(`addMonths(${TIMESTAMP}, int): ${TIMESTAMP}`, (date: Date, months: bigint) => addMonths(date, Number(months)), { description: 'The date shifted by months, clamped to the end of the month' });
}

let base: Environment | null = null;

/** Shared environment without a record: query-time constants. Built once (construction is costly). */
export function constantEnvironment(): Environment {
  return (base ??= createBaseEnvironment());
}

export interface RecordScope {
  /** Object name, for messages. */
  name?: string;
  fields: Record<string, FieldDefinition>;
  /** false: no owner_id column. */
  owner?: boolean;
}

const cache = new WeakMap<object, Map<boolean, Environment>>();

/** Environment where `record` is typed from the object's fields and system columns. */
export function recordEnvironment(scope: RecordScope): Environment {
  const owner = scope.owner !== false;
  let byOwner = cache.get(scope.fields);
  if (!byOwner) cache.set(scope.fields, (byOwner = new Map()));
  const existing = byOwner.get(owner);
  if (existing) return existing;

  const schema: Record<string, string> = {};
  for (const system of SYSTEM_FIELDS) {
    if (system !== 'owner_id' || owner) schema[system] = SYSTEM_FIELD_CEL_TYPES[system];
  }
  for (const [name, field] of Object.entries(scope.fields)) schema[name] = fieldCelType(field);
  const env = constantEnvironment().clone().registerVariable({ name: 'record', schema, description: 'The record being evaluated' });
  byOwner.set(owner, env);
  return env;
}

let functionNames: Set<string> | null = null;

/** Every function and macro name CEL knows here, built-ins included. */
export function knownFunctionNames(): Set<string> {
  return (functionNames ??= new Set(constantEnvironment().getDefinitions().functions.map((f) => f.name)));
}
