import { useState } from 'preact/hooks';
import { api, sendWithProgress, urlOf } from '../api.ts';
import type { RelatedLookup, ViewDetail } from '../catalog.ts';
import { session } from '../session.ts';
import { useList } from '../useList.ts';
import { useSubmit } from '../useSubmit.ts';
import { AccessExplain } from './AccessExplain.tsx';
import { ActivitiesTab } from './ActivitiesTab.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';
import { RelatedRecords } from './RelatedRecords.tsx';

type Tab = 'history' | 'activities' | 'comments' | 'files' | 'sharing' | 'related';

/**
 * The tabs an object enables: History (trackHistory), Activities (activities, not on engine-owned
 * objects), Comments (feeds), Files (files), Sharing (records not open to all), Related records
 * (lookups of other objects pointing here that the user may read).
 */
export function tabsOf(detail: ViewDetail, related: readonly RelatedLookup[]): Array<{ id: Tab; label: string }> {
  const tabs: Array<{ id: Tab; label: string }> = [];
  if (detail.enable.trackHistory) tabs.push({ id: 'history', label: 'History' });
  if (detail.enable.activities && !detail.system) tabs.push({ id: 'activities', label: 'Activities' });
  if (detail.enable.feeds) tabs.push({ id: 'comments', label: 'Comments' });
  if (detail.enable.files) tabs.push({ id: 'files', label: 'Files' });
  if (detail.sharingModel !== 'public_read_write') tabs.push({ id: 'sharing', label: 'Sharing' });
  if (related.length > 0) tabs.push({ id: 'related', label: 'Related records' });
  return tabs;
}

/** The record's tabs; `related` are the lookups pointing to it (relatedLookups), read with the record. */
export function RecordTabs({ detail, related, id, version }: { detail: ViewDetail; related: RelatedLookup[]; id: string; version: unknown }) {
  const tabs = tabsOf(detail, related);
  const [chosen, setCurrent] = useState<Tab | null>(null);
  const current = chosen ?? tabs[0]?.id ?? null;
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
        {current === 'activities' ? <ActivitiesTab base={base} version={version} /> : null}
        {current === 'comments' ? <Comments base={base} /> : null}
        {current === 'files' ? <Files base={base} /> : null}
        {current === 'sharing' ? <Sharing base={base} object={detail.object} id={id} /> : null}
        {current === 'related' ? <RelatedRecords id={id} lookups={related} /> : null}
      </div>
    </section>
  );
}

function History({ base, detail, version }: { base: string; detail: ViewDetail; version: unknown }) {
  const { items, error } = useList(`${base}/history`, undefined, [version]);
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
  const { items, error, reload } = useList(`${base}/comments`);
  const [body, setBody] = useState('');
  const post = useSubmit(async () => {
    await api(`${base}/comments`, { method: 'POST', body: { body } });
    setBody('');
    reload();
  });
  return (
    <div class="comments">
      <ErrorNotice error={error ?? post.error} />
      <form onSubmit={post.onSubmit}>
        <label for="comment-body">Comment</label>
        <textarea id="comment-body" rows={3} required value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        <button type="submit" id="post-comment" class="primary" disabled={post.busy}>Post</button>
      </form>
      <ul class="comment-list">
        {(items ?? []).map((c) => <li key={String(c.id)}><p>{String(c.body)}</p><small>{new Date(String(c.createdAt)).toLocaleString()}</small></li>)}
      </ul>
    </div>
  );
}

function Files({ base }: { base: string }) {
  const { items, error, reload } = useList(`${base}/files`);
  const [progress, setProgress] = useState<number | null>(null);
  const upload = useSubmit(async (file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    setProgress(0);
    try {
      await sendWithProgress(`${base}/files`, form, { onProgress: setProgress });
      reload();
    } finally {
      setProgress(null);
    }
  });
  return (
    <div class="files">
      <ErrorNotice error={error ?? upload.error} />
      <label for="file-upload">Upload a file</label>
      <input id="file-upload" type="file" disabled={upload.busy} onChange={(e) => { const f = e.currentTarget.files?.[0]; if (f) void upload.run(f); }} />
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

function Sharing({ base, object, id }: { base: string; object: string; id: string }) {
  const { items, error, reload } = useList(`${base}/shares`);
  const [type, setType] = useState('user');
  const [recipient, setRecipient] = useState('');
  const [access, setAccess] = useState('read');
  const share = useSubmit(async () => {
    await api(`${base}/shares`, { method: 'POST', body: { recipient_type: type, recipient_id: recipient.trim(), access } });
    setRecipient('');
    reload();
  });
  const admin = session.value.status === 'signedIn' && session.value.user.role === 'admin';
  const revoke = useSubmit(async (shareId: string) => {
    await api(`${base}/shares/${encodeURIComponent(shareId)}`, { method: 'DELETE' });
    reload();
  });
  return (
    <div class="sharing">
      <ErrorNotice error={error ?? share.error ?? revoke.error} />
      <form onSubmit={share.onSubmit} class="share-form">
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
        <button type="submit" id="share-record" class="primary" disabled={share.busy}>Share</button>
      </form>
      <ul class="share-list">
        {(items ?? []).map((s) => (
          <li key={String(s.id)} data-recipient={String(s.recipient_id)}>
            {String(s.recipient_type)} {String(s.recipient_id)}: {String(s.access)}
            <button type="button" disabled={revoke.busy} onClick={() => void revoke.run(String(s.id))}>Revoke</button>
          </li>
        ))}
      </ul>
      {admin ? <AccessExplain object={object} id={id} revision={(items ?? []).map((s) => String(s.id)).join(',')} /> : null}
    </div>
  );
}
