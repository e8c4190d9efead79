/** The access world (users, positions, docs with a hidden field) with the reports fixture app and mail to an SMTP sink. */
import type { Test } from 'tap';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import type { Site } from '../auth/authHarness.ts';
import { buildWorld, type World } from '../access/accessWorld.ts';
import { startSmtpSink, type SmtpSink } from '../email/smtpSink.ts';

export interface ReportsWorld extends World {
  sink: SmtpSink;
  queue: JobsQueue;
  environmentId: string;
}

export async function buildReportsWorld(t: Test, site: Site): Promise<ReportsWorld> {
  const sink = await startSmtpSink();
  t.teardown(() => sink.close());
  const email = { provider: 'smtp', from: 'reports@example.com', smtp: { host: '127.0.0.1', port: sink.port } };
  const withMail: Site = { ...site, boot: (options = {}) => site.boot({ ...options, email }) };
  const w = await buildWorld(t, withMail, { apps: ['test/reports/fixtures/app'] });
  const queue = w.rt.runtime.kernel.service<JobsQueue>('jobs.queue')!;
  return { ...w, sink, queue, environmentId: site.ids[0]! };
}

/** The attachments of a raw message: file name and decoded bytes. */
export function attachmentsOf(raw: string): Array<{ filename: string; contentType: string; content: Buffer }> {
  const out: Array<{ filename: string; contentType: string; content: Buffer }> = [];
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  if (!boundary) return out;
  for (const part of raw.split(`--${boundary}`)) {
    const at = part.indexOf('\r\n\r\n');
    if (at < 0) continue;
    const head = part.slice(0, at).replace(/\r\n[ \t]+/g, ' ');
    const filename = /filename="?([^";\r\n]+)"?/i.exec(head)?.[1];
    if (!filename || !/content-disposition:\s*attachment/i.test(head)) continue;
    const contentType = /content-type:\s*([^;\r\n]+)/i.exec(head)?.[1] ?? '';
    out.push({ filename, contentType, content: Buffer.from(part.slice(at + 4).replace(/\s+/g, ''), 'base64') });
  }
  return out;
}

/** Waits until a job has finished (completed, dead) and answers its state. */
export async function finished(queue: JobsQueue, id: string, environmentId: string, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = await queue.get(id, environmentId);
    if (job && (job.state === 'completed' || job.state === 'dead')) return job.state;
    if (Date.now() > until) throw new Error(`job ${id} still ${job?.state ?? 'unknown'} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
