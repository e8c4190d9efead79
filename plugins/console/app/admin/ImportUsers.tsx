import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { useSubmit } from '../useSubmit.ts';

interface ImportRow { row: number; email: string | null; action: 'create' | 'update' | 'skip' | 'error'; delivery: string; temporaryPassword?: string; errors?: Array<{ field: string; message: string }> }
interface ImportReport {
  dryRun: boolean;
  rows: ImportRow[];
  summary: { created: number; updated: number; skipped: number; errors: number; delivery: Record<string, number> };
}

const DELIVERY: Record<string, string> = {
  invite_email: 'invitation by email',
  invite_sms: 'invitation by text message',
  temporary_password: 'one-time password',
  none: 'nothing',
};
const DELIVERIES: Record<string, string> = {
  invite_email: 'invitations by email',
  invite_sms: 'invitations by text message',
  temporary_password: 'one-time passwords',
  none: 'nothing',
};

/** base64 of a file's bytes, as the import route takes a workbook. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Users from a CSV or XLSX file (`POST /auth/admin/import-users`, at most 500 rows): a dry run
 * first, whose report says per row what would happen; then the import, whose report holds the
 * one-time passwords of the rows that got one (shown this once).
 */
export function ImportUsers() {
  const [file, setFile] = useState<File | null>(null);
  const [upsertBy, setUpsertBy] = useState<'email' | 'phone'>('email');
  const [policy, setPolicy] = useState<'auto' | 'none'>('auto');
  const [report, setReport] = useState<ImportReport | null>(null);
  /** What the last dry run checked: the import runs only on exactly that. */
  const [checked, setChecked] = useState<string | null>(null);
  const key = file ? `${file.name}\u0000${file.size}\u0000${file.lastModified}\u0000${upsertBy}\u0000${policy}` : null;
  const send = useSubmit(async (dryRun: boolean) => {
    if (!file) return;
    const xlsx = /\.xlsx$/i.test(file.name);
    const content = xlsx ? { xlsx: await base64Of(file) } : { csv: await file.text() };
    setReport(null);
    const answer = await api<ImportReport>('/auth/admin/import-users', { method: 'POST', body: { ...content, dryRun, upsertBy, passwordPolicy: policy } });
    setReport(answer);
    setChecked(dryRun ? key : null);
  });
  const s = report?.summary;
  return (
    <section class="import-users">
      <header class="screen-head">
        <p class="crumbs"><a href={href('/admin/users')}>Users</a></p>
        <h1>Import users</h1>
      </header>
      <p>A CSV or XLSX file (the first sheet) with the columns <code>email</code>, <code>name</code> and <code>phone</code>, at most 500 rows. Existing users (by email or phone) get their name and phone updated; their password is never touched. Run the dry run first: it writes and sends nothing.</p>
      <form class="panel-form" onSubmit={(e) => { e.preventDefault(); void send.run(true); }}>
        <label for="import-file">File</label>
        <input id="import-file" type="file" accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" onChange={(e) => { setFile(e.currentTarget.files?.[0] ?? null); setReport(null); setChecked(null); }} />
        <label for="import-upsert">Match existing users by</label>
        <select id="import-upsert" value={upsertBy} onChange={(e) => setUpsertBy(e.currentTarget.value as 'email' | 'phone')}>
          <option value="email">email</option>
          <option value="phone">phone</option>
        </select>
        <label for="import-policy">New users get</label>
        <select id="import-policy" value={policy} onChange={(e) => setPolicy(e.currentTarget.value as 'auto' | 'none')}>
          <option value="auto">an invitation (email, else text message), else a one-time password</option>
          <option value="none">nothing (identities only)</option>
        </select>
        <div class="form-actions">
          <button type="submit" id="import-dry-run" disabled={!file || send.busy}>Dry run</button>
          <button type="button" class="primary" id="import-run" disabled={!file || send.busy || checked !== key} onClick={() => void send.run(false)}>Import</button>
        </div>
        {file && checked !== key && !send.busy ? <p class="muted">The import opens once a dry run of this file has been read.</p> : null}
      </form>
      <ErrorNotice error={send.error} />
      {send.busy ? <p aria-busy="true">Working…</p> : null}
      {report && s ? (
        <div class="import-report" aria-live="polite">
          <h2>{report.dryRun ? 'Dry run: nothing was written or sent' : 'Imported'}</h2>
          <p id="import-summary">
            {report.dryRun ? 'Would create' : 'Created'} {s.created}, {report.dryRun ? 'update' : 'updated'} {s.updated}, {report.dryRun ? 'skip' : 'skipped'} {s.skipped}; {s.errors} {s.errors === 1 ? 'row' : 'rows'} with errors.
            {' '}Delivery: {Object.entries(s.delivery).filter(([, n]) => n > 0).map(([k, n]) => (k === 'none' ? `${n} nothing` : `${n} ${(n === 1 ? DELIVERY : DELIVERIES)[k] ?? k}`)).join(', ') || 'none'}.
          </p>
          {!report.dryRun && report.rows.some((r) => r.temporaryPassword) ? <p class="notice warning">The one-time passwords below are shown this once: hand them over now.</p> : null}
          <div class="table-wrap">
            <table id="import-rows">
              <thead><tr><th scope="col">Row</th><th scope="col">Email</th><th scope="col">Action</th><th scope="col">Delivery</th><th scope="col">Errors</th>{report.dryRun ? null : <th scope="col">One-time password</th>}</tr></thead>
              <tbody>
                {report.rows.map((r) => (
                  <tr key={r.row} data-row={r.row} class={r.action === 'error' ? 'row-error' : ''}>
                    <td>{r.row}</td>
                    <td>{r.email ?? ''}</td>
                    <td>{r.action}</td>
                    <td>{DELIVERY[r.delivery] ?? r.delivery}</td>
                    <td>{(r.errors ?? []).map((e) => `${e.field}: ${e.message}`).join('; ')}</td>
                    {report.dryRun ? null : <td>{r.temporaryPassword ? <code>{r.temporaryPassword}</code> : ''}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      ) : null}
    </section>
  );
}
