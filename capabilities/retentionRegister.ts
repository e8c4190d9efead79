import { defineCapability } from './defineCapability.ts';

export interface RetentionContract {
  /** Unique name, for example `notifications.history`. */
  name: string;
  /** Records concerned: an object or table name (a plain name: letters, digits, _). */
  object: string;
  description: string;
  /** Keep records this many days; 0 keeps them forever. */
  keepDays: number;
  /** What happens to records past the window. */
  action: 'delete' | 'archive' | 'anonymize';
  /** Timestamp column that ages a record: the engine's datetime (ISO text on SQLite, timestamptz on PostgreSQL). */
  ageField: string;
  /** Only rows whose columns equal these values (null: IS NULL) are concerned. */
  filter?: Readonly<Record<string, string | number | boolean | null>>;
  /**
   * A window several plugins apply to their own tables (`system.activity`): each declares the
   * contract with `shared: true` and the same keepDays and action; one override sets them all.
   */
  shared?: boolean;
}

export interface RetentionEntry extends RetentionContract {
  plugin: string;
}

export interface RetentionRegister {
  contracts(): readonly RetentionEntry[];
}

export const retentionRegister = defineCapability<RetentionRegister>()({
  id: 'retention.register',
  cardinality: 'single',
  description: 'Read the retention contracts every plugin declared (provided by the kernel).',
});
