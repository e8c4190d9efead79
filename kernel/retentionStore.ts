import { z } from 'zod';
import type { RetentionContract, RetentionEntry, RetentionRegister } from '../capabilities/retentionRegister.ts';
import { codedError } from './errors.ts';
import { PARSE_ONCE } from './parseOnce.ts';

/** A table or column name: never a schema-qualified name or an expression. */
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be a plain table or column name (letters, digits, _)');

const contractSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_.-]*$/, 'must be lower-case, dots and dashes allowed'),
  object: identifier,
  description: z.string().min(1),
  keepDays: z.number().int().min(0),
  action: z.enum(['delete', 'archive', 'anonymize']),
  ageField: identifier,
  filter: z.record(identifier, z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  shared: z.boolean().optional(),
});

/** Collects retention contracts during register; read through `retention.register`. */
export class RetentionStore {
  private entries: RetentionEntry[] = [];

  add(plugin: string, contract: RetentionContract): void {
    const parsed = contractSchema.safeParse(contract, PARSE_ONCE);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw codedError('KERNEL_INVALID_RETENTION', {
        plugin, path: issue.path.join('.') || '(root)', reason: issue.message,
        fix: 'declare { name, object, description, keepDays, action, ageField, filter? }',
      });
    }
    // A shared contract is one window over several tables: every part already declared must say
    // the same window and action, and none may name the same table.
    for (const taken of this.entries.filter((e) => e.name === parsed.data.name)) {
      if (taken.shared !== true || parsed.data.shared !== true) {
        throw codedError('KERNEL_INVALID_RETENTION', {
          plugin, path: 'name', reason: `'${parsed.data.name}' is already declared by '${taken.plugin}'`, fix: 'give each contract a unique name',
        });
      }
      const differs = taken.keepDays !== parsed.data.keepDays ? 'keepDays' : taken.action !== parsed.data.action ? 'action' : taken.object === parsed.data.object ? 'object' : null;
      if (differs) {
        throw codedError('KERNEL_INVALID_RETENTION', {
          plugin, path: differs, reason: `the shared contract '${parsed.data.name}' is declared by '${taken.plugin}' with ${differs} ${JSON.stringify(taken[differs])}`,
          fix: differs === 'object' ? 'declare each table of a shared contract once' : `declare '${parsed.data.name}' with the same keepDays and action as the other parts`,
        });
      }
    }
    // Frozen: a reader must not be able to shorten another plugin's retention window.
    this.entries.push(Object.freeze({ ...parsed.data, ...(parsed.data.filter ? { filter: Object.freeze({ ...parsed.data.filter }) } : {}), plugin }));
  }

  removePlugin(plugin: string): void {
    this.entries = this.entries.filter((e) => e.plugin !== plugin);
  }

  contracts(): readonly RetentionEntry[] {
    return Object.freeze([...this.entries]);
  }

  /** What plugins get for `retention.register`: reading only. */
  view(): RetentionRegister {
    return Object.freeze({ contracts: this.contracts.bind(this) });
  }
}
