import { defineCapability } from './defineCapability.ts';

/** What one sweep did for one flow and one slot (an offset, or the within-days window). */
export interface SweepSlot {
  /** `offset:<days>` or `within:<days>`. */
  slot: string;
  /** The values of the date field the slot matched: one day, or the first and last day of the window. */
  from: string;
  to: string;
  matched: number;
  started: number;
  /** Records this flow already started for this slot (an earlier sweep, or the same day swept twice). */
  already: number;
  failed: number;
}

export interface SweepReport {
  /** The day swept, YYYY-MM-DD (UTC). */
  date: string;
  environments: Array<{ id: string; flows: Array<{ flow: string; object: string; field: string; slots: SweepSlot[] }> }>;
}

export interface AutomationSweep {
  /** Starts the time-relative flows for one day (default today, UTC), once per matching record and slot. */
  run(options?: { date?: string; environmentId?: string }): Promise<SweepReport>;
}

export const automationSweep = defineCapability<AutomationSweep>()({
  id: 'automation.sweep',
  cardinality: 'single',
  description: 'Run the daily sweep of time-relative flows for a day: each matching record started once per offset.',
});
