import type { AuthIdentity } from '../../capabilities/authIdentity.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { IoExport } from '../../capabilities/ioExport.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { isCodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Schedule } from './reportInput.ts';
import type { ReportStore, StoredReport } from './reportStore.ts';
import { runQuery } from './runQuery.ts';
import { checkPattern, matchesAt, parseZonedCron } from './zonedCron.ts';

/** The hourly check of one schedule (repeatable, at the UTC minutes its pattern can fall on). */
export const TICK_JOB = 'reports.tick';
/** One delivery: run the report as its owner and mail the file (queued by the check, or directly). */
export const DELIVER_JOB = 'reports.deliver';

export interface TickData { reportId: string }
export interface DeliverData { reportId: string; slot?: string }

export interface DeliveryDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  store: ReportStore;
  queue: JobsQueue;
  email: () => EmailSend | undefined;
  identity: () => AuthIdentity | undefined;
  files: IoExport;
  log: Logger;
}

const scheduleKey = (reportId: string) => `report:${reportId}`;

/** What a failed delivery keeps: the error's code and sentence, never the rows. */
const reasonOf = (error: unknown) => (isCodedError(error) ? `${error.code}: ${error.message}` : String((error as Error)?.message ?? error)).slice(0, 2000);

export function createReportDelivery(deps: DeliveryDeps) {
  const { store, queue, log } = deps;

  /** Keeps the repeatable check of a report's schedule (replacing an earlier one). */
  async function schedule(environmentId: string, report: StoredReport, value: Schedule): Promise<void> {
    await queue.unschedule(TICK_JOB, scheduleKey(report.id), environmentId);
    const cron = parseZonedCron(value.cron, value.timezone);
    await queue.schedule(TICK_JOB, scheduleKey(report.id), { pattern: checkPattern(cron) }, { reportId: report.id } satisfies TickData, { environmentId, attempts: 1 });
  }

  async function unschedule(environmentId: string, reportId: string): Promise<void> {
    await queue.unschedule(TICK_JOB, scheduleKey(reportId), environmentId);
  }

  /** At a minute the pattern matches on the schedule's wall clock, queues that minute's delivery once. */
  async function tick(environmentId: string, data: TickData, now = new Date()): Promise<void> {
    const report = await store.find(environmentId, data.reportId);
    if (!report?.schedule) return;
    const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
    if (!matchesAt(parseZonedCron(report.schedule.cron, report.schedule.timezone), minute)) return;
    const slot = minute.toISOString();
    await queue.add(DELIVER_JOB, { reportId: report.id, slot } satisfies DeliverData, { environmentId, idempotencyKey: `${report.id}:${slot}`, attempts: 3, backoff: 60_000 });
  }

  /**
   * Runs the report as its owner (the owner's row and field security at run time) and mails the
   * file to each recipient. When the owner no longer exists, is banned, or may no longer run the
   * query, nothing is sent: the failure is logged and kept on the report. A delivery failure of
   * the mail provider is thrown, so the job retries; for a scheduled slot, the recipients already
   * mailed are kept on the report and the retry mails only the others.
   */
  async function deliver(environmentId: string, data: DeliverData): Promise<{ sent: number; rows?: number; error?: string }> {
    const report = await store.find(environmentId, data.reportId);
    if (!report?.schedule) return { sent: 0, error: 'the report or its schedule is gone' };
    const where = { report: report.id, environmentId, slot: data.slot ?? null };
    const refuse = async (reason: string) => {
      log.warn({ ...where, reason }, `scheduled report ${report.id} was not sent: ${reason}`);
      await store.update(environmentId, report.id, { last_delivery_error: reason });
      return { sent: 0, error: reason };
    };
    const email = deps.email();
    if (!email) return refuse('email.send is not available: enable the email plugin');
    const identity = deps.identity();
    if (!identity) return refuse('auth.identity is not available: the owner cannot be resolved');
    const owner = await identity.principalOf(environmentId, report.ownerId);
    if (!owner) return refuse('the report owner no longer exists or is banned');

    let run;
    try {
      run = await runQuery(deps.engine, deps.metadata, report.query, { environmentId, principal: owner, requestId: `report-delivery:${report.id}` });
    } catch (error) {
      if (isCodedError(error) && error.status < 500) return refuse(reasonOf(error));
      throw error;
    }
    const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
    const file = await deps.files.render(report.schedule.format, run.columns, run.items, { label: report.name, title: `${report.name} (${stamp} UTC)` });
    const filename = `${report.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'report'}-${stamp.slice(0, 10)}.${file.extension}`;
    const text = `${report.name}: ${run.items.length} row(s) of ${run.object.pluralLabel}${run.truncated ? ' (more rows match; the report returns its first page)' : ''}. The file ${filename} is attached.`;
    // A retry of a slot whose mail failed partway mails only the recipients not yet mailed for it.
    const slot = data.slot ?? null;
    const mailed = new Set(slot !== null && report.deliverySlot === slot ? report.deliveredTo : []);
    for (const to of report.schedule.recipients) {
      if (mailed.has(to)) continue;
      await email.send({ to, environmentId, subject: `Report: ${report.name}`, text, attachments: [{ filename, content: file.body, contentType: file.contentType }] });
      mailed.add(to);
      if (slot !== null) await store.update(environmentId, report.id, { delivery_slot: slot, delivered_to: [...mailed] });
    }
    await store.update(environmentId, report.id, { last_delivery_at: new Date().toISOString(), last_delivery_error: null });
    log.info({ ...where, rows: run.items.length, recipients: report.schedule.recipients.length }, `scheduled report ${report.id} sent`);
    return { sent: report.schedule.recipients.length, rows: run.items.length };
  }

  return { schedule, unschedule, tick, deliver };
}

export type ReportDelivery = ReturnType<typeof createReportDelivery>;
