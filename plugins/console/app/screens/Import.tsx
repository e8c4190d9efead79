import { useEffect, useState } from 'preact/hooks';
import { ApiError, sendWithProgress } from '../api.ts';
import { objectView, type ViewDetail } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { normalizeColumn, previewCsv } from '../csv.ts';
import { href } from '../route.ts';

interface ImportResult {
  dryRun: boolean; total: number; valid: number; failed: number; created: number;
  errors: Array<{ row: number; code: string; errors: Array<{ path: string; message: string; column?: string }> }>;
  rows?: Array<{ row: number; id: string }>;
}

const NOT_WRITABLE = new Set(['formula', 'autonumber']);

/**
 * A CSV file into an object: the columns' mapping previewed (and changed) before anything is sent,
 * a dry run, the upload's progress, then the per-row errors or the created records. Atomic: a file
 * with a bad row writes nothing.
 */
export function Import({ object }: { object: string }) {
  const [detail, setDetail] = useState<ViewDetail | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<{ header: string[]; rows: string[][] } | null>(null);
  const [mapping, setMapping] = useState<Record<string, string | null>>({});
  const [progress, setProgress] = useState<{ phase: 'upload' | 'server'; percent: number } | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => { void objectView(object).then(setDetail, setError); }, [object]);
  if (!detail) return <section><ErrorNotice error={error} /></section>;
  const writable = Object.entries(detail.fields).filter(([, f]) => !f.readonly && !NOT_WRITABLE.has(f.type)).map(([name]) => name);

  const choose = async (chosen: File | undefined) => {
    setResult(null);
    setError(null);
    if (!chosen) return;
    setFile(chosen);
    const head = previewCsv(await chosen.slice(0, 64 * 1024).text(), 5);
    setPreview(head);
    const auto: Record<string, string | null> = {};
    for (const column of head.header) auto[column] = writable.find((f) => f === column) ?? writable.find((f) => normalizeColumn(f) === normalizeColumn(column)) ?? null;
    setMapping(auto);
  };
  const send = async (dryRun: boolean) => {
    if (!file) return;
    setResult(null);
    setError(null);
    const body = JSON.stringify({ format: 'csv', csv: await file.text(), mapping, dryRun, atomic: true });
    setProgress({ phase: 'upload', percent: 0 });
    try {
      setResult(await sendWithProgress<ImportResult>(`/data/${object}/import`, body, {
        contentType: 'application/json',
        onProgress: (percent) => setProgress({ phase: 'upload', percent }),
        onSent: () => setProgress({ phase: 'server', percent: 100 }),
      }));
    } catch (e) {
      // A rejected file (atomic: nothing written) answers its per-row report as the error's details.
      if (e instanceof ApiError && e.code === 'IMPORT_REJECTED' && Array.isArray(e.details.errors)) setResult(e.details as unknown as ImportResult);
      setError(e instanceof ApiError && e.code === 'NETWORK'
        ? new Error('The server closed the connection before answering: the import may take longer than its request timeout (server.requestTimeoutMs); try a smaller file.')
        : e);
    } finally {
      setProgress(null);
    }
  };

  return (
    <section class="import">
      <header class="screen-head">
        <p class="crumbs"><a href={href(`/views/${detail.name}`)}>{detail.pluralLabel}</a></p>
        <h1>Import {detail.pluralLabel.toLowerCase()}</h1>
      </header>
      <label for="import-file">CSV file (the first line names the columns)</label>
      <input id="import-file" type="file" accept=".csv,text/csv" onChange={(e) => void choose(e.currentTarget.files?.[0])} />
      {preview ? (
        <div class="table-wrap">
          <table id="import-preview">
            <caption>Columns and where they go, with the first rows</caption>
            <thead>
              <tr>{preview.header.map((column) => <th scope="col" key={column}>{column}</th>)}</tr>
              <tr>
                {preview.header.map((column) => (
                  <td key={column}>
                    <select aria-label={`Field for column ${column}`} data-column={column} value={mapping[column] ?? ''}
                      onChange={(e) => setMapping({ ...mapping, [column]: e.currentTarget.value || null })}>
                      <option value="">(skip)</option>
                      {writable.map((f) => <option key={f} value={f}>{detail.fields[f]!.label}</option>)}
                    </select>
                  </td>
                ))}
              </tr>
            </thead>
            <tbody>{preview.rows.map((row, i) => <tr key={i}>{preview.header.map((_, j) => <td key={j}>{row[j] ?? ''}</td>)}</tr>)}</tbody>
          </table>
        </div>
      ) : null}
      {file ? (
        <div class="form-actions">
          <button type="button" id="import-dry-run" disabled={progress !== null} onClick={() => void send(true)}>Dry run</button>
          <button type="button" id="import-run" class="primary" disabled={progress !== null} onClick={() => void send(false)}>Import</button>
        </div>
      ) : null}
      {progress ? (
        <p role="status" id="import-progress">
          {progress.phase === 'upload' ? `Sending the file: ${progress.percent}%` : 'Checking and writing the rows…'}
          <progress max={100} value={progress.percent} aria-label="Import progress" />
        </p>
      ) : null}
      <ErrorNotice error={error} />
      {result ? (
        <div id="import-result" class="notice" role="status">
          <p>{result.dryRun ? 'Dry run: nothing was written. ' : ''}{result.total} rows, {result.valid} valid, {result.failed} with errors, {result.created} created.</p>
          {result.errors.length > 0 ? (
            <table id="import-errors">
              <caption>Rows with errors</caption>
              <thead><tr><th scope="col">Row</th><th scope="col">Column</th><th scope="col">Problem</th></tr></thead>
              <tbody>
                {result.errors.flatMap((e) => (e.errors.length ? e.errors : [{ path: '', message: e.code }]).map((p, k) => (
                  <tr key={`${e.row}-${k}`} data-row={e.row}><td>{e.row}</td><td>{('column' in p && p.column) || p.path}</td><td>{p.message}</td></tr>
                )))}
              </tbody>
            </table>
          ) : null}
          {result.rows && result.rows.length > 0 ? (
            <div id="import-created">
              <p>Created records:</p>
              <ul>
                {result.rows.slice(0, 20).map((r) => <li key={r.id}><a href={href(`/records/${object}/${encodeURIComponent(r.id)}`)}>Row {r.row}</a></li>)}
              </ul>
              {result.rows.length > 20 ? <p>… and {result.rows.length - 20} more (<a href={href(`/views/${detail.name}`)}>see the list</a>).</p> : null}
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
