import { useEffect, useState } from 'preact/hooks';
import { api, urlOf } from '../api.ts';
import type { ViewDetail } from '../catalog.ts';
import { noticeAuthError } from '../session.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

type Row = Record<string, unknown>;
type Tab = 'history' | 'comments' | 'files' | 'sharing';

/** The tabs an object enables: History (trackHistory), Comments (feeds), Files (files), Sharing (records not open to all). */
export function tabsOf(detail: ViewDetail): Array<{ id: Tab; label: string }> {
  const tabs: Array<{ id: Tab; label: string }> = [];
  if (detail.enable.trackHistory) tabs.push({ id: 'history', label: 'History' });
  if (detail.enable.feeds) tabs.push({ id: 'comments', label: 'Comments' });
  if (detail.enable.files) tabs.push({ id: 'files', label: 'Files' });
  if (detail.sharingModel !== 'public_read_write') tabs.push({ id: 'sharing', label: 'Sharing' });
  return tabs;
}

export function RecordTabs({ detail, id, version }: { detail: ViewDetail; id: string; version: unknown }) {
  const tabs = tabsOf(detail);
  const [current, setCurrent] = useState<Tab | null>(tabs[0]?.id ?? null);
  if (!current) return null;
  const base = `/data/${detail.object}/${encodeURIComponent(id)}`;
  return (
    <section class="tabs">
      <div role="tablist" aria-label="Record details">
        {tabs.map((tab) => (
          <button key={tab.id} type="button" role="tab" id={`tab-${tab.id}`} aria-selected={current === tab.id} aria-controls={`panel-${tab.id}`}
            tabIndex={current === tab.id ? 0 : -1} onClick={() => setCurrent(tab.id)}>{tab.label}</button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${current}`} aria-labelledby={`tab-${current}`} tabIndex={0}>
        {current === 'history' ? <History base={base} detail={detail} version={version} /> : null}
        {current === 'comments' ? <Comments base={base} /> : null}
        {current === 'files' ? <Files base={base} /> : null}
        {current === 'sharing' ? <Sharing base={base} /> : null}
      </div>
    </section>
  );
}

function useList(path: string, deps: unknown[]): [Row[] | null, unknown, () => void] {
  const [items, setItems] = useState<Row[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    api<{ items: Row[] }>(path).then((a) => { setItems(a.items); setError(null); }, (e) => { noticeAuthError(e); setError(e); });
  }, [path, tick, ...deps]);
  return [items, error, () => setTick(tick + 1)];
}

function History({ base, detail, version }: { base: string; detail: ViewDetail; version: unknown }) {
  const [items, error] = useList(`${base}/history`, [version]);
  return (
    <div class="history">
      <ErrorNotice error={error} />
      <ol class="history-list">
        {(items ?? []).map((entry) => (
          <li key={String(entry.id)}>
            <strong>{String(entry.operation)}</strong> · version {String(entry.version)} · {new Date(String(entry.changedAt)).toLocaleString()}
            <ul>
              {Object.entries((entry.changes ?? {}) as Record<string, { old?: unknown; new?: unknown } | unknown>).map(([field, change]) => {
                const c = (change ?? {}) as { old?: unknown; new?: unknown };
                return <li key={field}>{detail.fields[field]?.label ?? field}: {JSON.stringify(c.old ?? null)} → {JSON.stringify(c.new ?? change)}</li>;
              })}
            </ul>
          </li>
        ))}
      </ol>
    </div>
  );
}

function Comments({ base }: { base: string }) {
  const [items, error, reload] = useList(`${base}/comments`, []);
  const [body, setBody] = useState('');
  const [failure, setFailure] = useState<unknown>(null);
  const post = async (event: Event) => {
    event.preventDefault();
    try {
      await api(`${base}/comments`, { method: 'POST', body: { body } });
      setBody('');
      setFailure(null);
      reload();
    } catch (e) {
      setFailure(e);
    }
  };
  return (
    <div class="comments">
      <ErrorNotice error={error ?? failure} />
      <form onSubmit={post}>
        <label for="comment-body">Comment</label>
        <textarea id="comment-body" rows={3} required value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        <button type="submit" id="post-comment" class="primary">Post</button>
      </form>
      <ul class="comment-list">
        {(items ?? []).map((c) => <li key={String(c.id)}><p>{String(c.body)}</p><small>{new Date(String(c.createdAt)).toLocaleString()}</small></li>)}
      </ul>
    </div>
  );
}

function Files({ base }: { base: string }) {
  const [items, error, reload] = useList(`${base}/files`, []);
  const [progress, setProgress] = useState<number | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const upload = (file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', urlOf(`${base}/files`));
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) setProgress(Math.round((e.loaded / e.total) * 100)); };
    xhr.onload = () => {
      setProgress(null);
      if (xhr.status >= 200 && xhr.status < 300) { setFailure(null); reload(); return; }
      try {
        const envelope = JSON.parse(xhr.responseText) as { error?: { message?: string } };
        setFailure(new Error(envelope.error?.message ?? `Upload failed (${xhr.status})`));
      } catch {
        setFailure(new Error(`Upload failed (${xhr.status})`));
      }
    };
    xhr.onerror = () => { setProgress(null); setFailure(new Error('The upload did not reach the server.')); };
    xhr.send(form);
  };
  return (
    <div class="files">
      <ErrorNotice error={error ?? failure} />
      <label for="file-upload">Upload a file</label>
      <input id="file-upload" type="file" onChange={(e) => { const f = e.currentTarget.files?.[0]; if (f) upload(f); }} />
      {progress !== null ? <progress id="upload-progress" max={100} value={progress} aria-label="Upload progress">{progress}%</progress> : null}
      <ul class="file-list">
        {(items ?? []).map((f) => (
          <li key={String(f.id)}>
            <a href={urlOf(`${base}/files/${encodeURIComponent(String(f.id))}`)} download={String(f.name)}>{String(f.name)}</a>
            <small> {Number(f.size).toLocaleString()} bytes</small>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Sharing({ base }: { base: string }) {
  const [items, error, reload] = useList(`${base}/shares`, []);
  const [type, setType] = useState('user');
  const [recipient, setRecipient] = useState('');
  const [access, setAccess] = useState('read');
  const [failure, setFailure] = useState<unknown>(null);
  const share = async (event: Event) => {
    event.preventDefault();
    try {
      await api(`${base}/shares`, { method: 'POST', body: { recipient_type: type, recipient_id: recipient.trim(), access } });
      setRecipient('');
      setFailure(null);
      reload();
    } catch (e) {
      setFailure(e);
    }
  };
  const revoke = async (shareId: string) => {
    try {
      await api(`${base}/shares/${encodeURIComponent(shareId)}`, { method: 'DELETE' });
      reload();
    } catch (e) {
      setFailure(e);
    }
  };
  return (
    <div class="sharing">
      <ErrorNotice error={error ?? failure} />
      <form onSubmit={share} class="share-form">
        <label for="share-type">Share with</label>
        <select id="share-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          <option value="user">a user</option>
          <option value="position">a position</option>
        </select>
        <label for="share-recipient">{type === 'user' ? 'User id' : 'Position'}</label>
        <input id="share-recipient" required value={recipient} onInput={(e) => setRecipient(e.currentTarget.value)} />
        <label for="share-access">Access</label>
        <select id="share-access" value={access} onChange={(e) => setAccess(e.currentTarget.value)}>
          <option value="read">read</option>
          <option value="edit">edit</option>
        </select>
        <button type="submit" id="share-record" class="primary">Share</button>
      </form>
      <ul class="share-list">
        {(items ?? []).map((s) => (
          <li key={String(s.id)} data-recipient={String(s.recipient_id)}>
            {String(s.recipient_type)} {String(s.recipient_id)}: {String(s.access)}
            <button type="button" onClick={() => void revoke(String(s.id))}>Revoke</button>
          </li>
        ))}
      </ul>
    </div>
  );
}
