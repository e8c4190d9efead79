import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { OpsNav } from '../ops/OpsNav.tsx';
import { ChatLink } from './ChatLink.tsx';
import { defaultViewOf, defaultViews, loadViews, views, type ViewDoc } from '../catalog.ts';
import { aiQueue, probeAiQueue, refreshUnread, unread } from '../inbox.ts';
import { href, location, navigate } from '../route.ts';
import { isAdmin, session, signOut } from '../session.ts';
import { EnvironmentSwitcher } from './EnvironmentSwitcher.tsx';

interface BookNode { name: string; kind: 'section' | 'page'; label: string; object?: string; view?: string; children?: BookNode[] }
interface Book { name: string; label: string; nodes: BookNode[] }

/** A book page's view: the one it names when the user may use it, else its object's default view. */
function viewOfPage(list: ViewDoc[], object: string, view?: string): string | null {
  const named = view ? list.find((v) => v.name === `${object}.${view}`) : undefined;
  return (named ?? defaultViewOf(list, object))?.name ?? null;
}

function BookNodes({ nodes, list }: { nodes: BookNode[]; list: ViewDoc[] }) {
  return (
    <ul>
      {nodes.map((node) => {
        const target = node.object ? viewOfPage(list, node.object, node.view) : null;
        if (node.kind === 'page' && node.object && !target) return null;
        return (
          <li key={node.name}>
            {target ? <a href={href(`/views/${target}`)}>{node.label}</a> : <span class="section">{node.label}</span>}
            {node.children && node.children.length > 0 ? <BookNodes nodes={node.children} list={list} /> : null}
          </li>
        );
      })}
    </ul>
  );
}

/** The frame of every signed-in screen: navigation (books, then the objects the user may read, each to its default view), search, sign-out. */
export function Shell({ children }: { children: ComponentChildren }) {
  const [books, setBooks] = useState<Book[]>([]);
  const [query, setQuery] = useState(location.value.query.get('q') ?? '');
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    if (!views.value) void loadViews().catch(() => undefined);
    void (async () => {
      try {
        const list = await api<{ items: Array<{ name: string }> }>('/meta/book');
        const trees = await Promise.all(list.items.map((b) => api<Book>(`/meta/book/${encodeURIComponent(b.name)}/tree`)));
        setBooks(trees);
      } catch {
        setBooks([]);
      }
    })();
  }, []);
  // The unread count: on every screen change, and every half minute while the page is open.
  const place = location.value;
  useEffect(() => { void refreshUnread(); }, [place]);
  useEffect(() => {
    if (aiQueue.value === null) void probeAiQueue();
    const timer = setInterval(() => void refreshUnread(), 30_000);
    return () => clearInterval(timer);
  }, []);
  const list = views.value ?? [];
  const objects = defaultViews(list);
  const own = objects.filter((v) => !v.system);
  const system = objects.filter((v) => v.system);
  const user = session.value.status === 'signedIn' ? session.value.user : null;
  return (
    <div class={`shell${menuOpen ? ' menu-open' : ''}`}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="topbar">
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        <a class="brand" href={href('/')}>Console</a>
        <form role="search" class="search" onSubmit={(e) => { e.preventDefault(); navigate(`/search?q=${encodeURIComponent(query)}`); }}>
          <label for="global-search" class="visually-hidden">Search records</label>
          <input id="global-search" type="search" placeholder="Search records" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </form>
        <a class="bell" id="notifications-link" href={href('/notifications')}>
          Notifications{unread.value ? <><span class="badge" id="unread-count">{unread.value}</span><span class="visually-hidden"> unread</span></> : null}
        </a>
        <EnvironmentSwitcher />
        <a class="who" href={href('/account')} id="account-link" title="Your account">{user?.email}</a>
        <button type="button" id="sign-out" onClick={() => void signOut()}>Sign out</button>
      </header>
      <nav id="nav" aria-label="Main">
        <section>
          <h2>Inbox</h2>
          <ul>
            <li><a href={href('/approvals')}>Approvals</a></li>
            {aiQueue.value ? <li><a href={href('/ai-actions')}>AI actions</a></li> : null}
            <ChatLink />
            <li><a href={href('/notifications')}>Notifications</a></li>
          </ul>
        </section>
        {books.map((book) => (
          <section key={book.name} class="book">
            <h2>{book.label}</h2>
            <BookNodes nodes={book.nodes} list={list} />
          </section>
        ))}
        <section>
          <h2>Objects</h2>
          <ul>
            {own.map((v) => <li key={v.object}><a href={href(`/views/${v.name}`)} data-object={v.object}>{v.pluralLabel}</a></li>)}
          </ul>
        </section>
        {system.length > 0 ? (
          <details>
            <summary>System objects</summary>
            <ul>
              {system.map((v) => <li key={v.object}><a href={href(`/views/${v.name}`)} data-object={v.object}>{v.pluralLabel}</a></li>)}
            </ul>
          </details>
        ) : null}
        {isAdmin(user) ? (
          <section>
            <h2>Administration</h2>
            <ul>
              <li><a href={href('/admin/users')}>Users</a></li>
              <li><a href={href('/admin/permission-sets')}>Permission sets</a></li>
              <li><a href={href('/admin/positions')}>Positions</a></li>
              <li><a href={href('/admin/assignments')}>Assignments</a></li>
              <li><a href={href('/admin/sharing-rules')}>Sharing rules</a></li>
            </ul>
          </section>
        ) : null}
        <OpsNav />
        <section>
          <h2>Insights</h2>
          <ul><li><a href={href('/reports')}>Reports</a></li><li><a href={href('/dashboards')}>Dashboards</a></li></ul>
        </section>
        <section>
          <h2>Account</h2>
          <ul>
            <li><a href={href('/account')}>Your account</a></li>
            <li><a href={href('/keys')}>API keys</a></li>
            <li><a href={href('/delegations')}>Delegations</a></li>
          </ul>
        </section>
        {isAdmin(user) ? (
          <section>
            <h2>Development</h2>
            <ul><li><a href={href('/outbox')}>Outbox</a></li></ul>
          </section>
        ) : null}
      </nav>
      <main id="main" tabIndex={-1}>{children}</main>
    </div>
  );
}
