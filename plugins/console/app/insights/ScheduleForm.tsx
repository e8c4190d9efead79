import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { FormField, splitErrors } from '../components/FormField.tsx';
import { formatValue } from '../format.ts';
import { useSubmit } from '../useSubmit.ts';
import type { Report } from './insightsApi.ts';

const FORMATS = ['csv', 'xlsx', 'pdf', 'json'];
const FIELDS = ['cron', 'timezone', 'recipients', 'format'];

/**
 * The scheduled delivery of a report (`POST`/`DELETE /reports/:id/schedule`): its owner sets a cron
 * pattern read on a time zone's clock, the recipients and the file's format; the owner or an admin
 * stops it. The last delivery (or why nothing was sent) is shown.
 */
export function ScheduleForm({ report, owner, onChange }: { report: Report; owner: boolean; onChange: (r: Report) => void }) {
  const current = report.schedule ?? null;
  const [cron, setCron] = useState(current?.cron ?? '0 8 * * 1');
  const [timezone, setTimezone] = useState(current?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC');
  const [recipients, setRecipients] = useState(current?.recipients.join(', ') ?? '');
  const [format, setFormat] = useState(current?.format ?? 'csv');
  const [saved, setSaved] = useState('');
  const save = useSubmit(async () => {
    const list = recipients.split(/[\s,;]+/).map((r) => r.trim()).filter(Boolean);
    const updated = await api<Report>(`/reports/${encodeURIComponent(report.id)}/schedule`, { method: 'POST', body: { cron, timezone, recipients: list, format } });
    onChange(updated);
    setSaved(`Delivery scheduled: ${cron} on the clock of ${timezone}.`);
  });
  const stop = useSubmit(async () => {
    await api(`/reports/${encodeURIComponent(report.id)}/schedule`, { method: 'DELETE' });
    onChange({ ...report, schedule: null });
    setSaved('Delivery stopped.');
  });
  const { byField, rest } = splitErrors(save.error, FIELDS);
  const last = report.lastDelivery;
  return (
    <section class="schedule" aria-labelledby="schedule-title">
      <h2 id="schedule-title">Scheduled delivery</h2>
      <p>{current ? `Mailed ${current.format.toUpperCase()} to ${current.recipients.join(', ')} at ${current.cron} (${current.timezone}).` : 'Not scheduled.'}</p>
      {last?.at ? <p class="muted">Last delivered {formatValue(last.at, undefined, 'at_at')}.</p> : null}
      {last?.error ? <p class="notice warning">The last delivery sent nothing: {last.error.message}</p> : null}
      {saved ? <p class="notice success" role="status" id="schedule-saved">{saved}</p> : null}
      <ErrorNotice error={stop.error} />
      {owner ? (
        <form class="panel-form" onSubmit={save.onSubmit} aria-label="Delivery schedule">
          <ErrorNotice error={rest} />
          <FormField id="schedule-cron" label="When (cron: minute hour day-of-month month day-of-week)" hint="30 7 * * 1-5: at 7:30 on weekdays" error={byField.cron}>
            {(aria) => <input {...aria} value={cron} maxLength={200} onInput={(e) => setCron(e.currentTarget.value)} />}
          </FormField>
          <FormField id="schedule-timezone" label="On the clock of (time zone)" error={byField.timezone}>
            {(aria) => <input {...aria} value={timezone} maxLength={64} onInput={(e) => setTimezone(e.currentTarget.value)} />}
          </FormField>
          <FormField id="schedule-recipients" label="Recipients (email addresses, at most 20)" error={byField.recipients}>
            {(aria) => <textarea {...aria} rows={2} value={recipients} onInput={(e) => setRecipients(e.currentTarget.value)} />}
          </FormField>
          <FormField id="schedule-format" label="File" error={byField.format}>
            {(aria) => (
              <select {...aria} value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
                {FORMATS.map((f) => <option key={f} value={f}>{f.toUpperCase()}</option>)}
              </select>
            )}
          </FormField>
          <div class="form-actions">
            <button type="submit" class="primary" id="save-schedule" disabled={save.busy}>{current ? 'Change schedule' : 'Schedule delivery'}</button>
            {current ? <button type="button" id="stop-schedule" disabled={stop.busy} onClick={() => void stop.run()}>Stop delivery</button> : null}
          </div>
        </form>
      ) : current ? (
        <button type="button" id="stop-schedule" disabled={stop.busy} onClick={() => void stop.run()}>Stop delivery</button>
      ) : <p class="muted">Only the report's owner schedules its delivery.</p>}
    </section>
  );
}
