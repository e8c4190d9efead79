import { z } from 'zod';

export const dataOptionsSchema = z.strictObject({
  /**
   * Schema sync at start: `additive` creates tables, columns and indexes and refuses changes that
   * lose data; `destructive` also drops columns and changes types; `off` leaves the database alone.
   */
  schemaSync: z.enum(['additive', 'destructive', 'off']).default('additive'),
});

export type DataOptions = z.output<typeof dataOptionsSchema>;
