import { useEffect } from 'preact/hooks';
import { forgetCatalog } from './catalog.ts';
import { Shell } from './components/Shell.tsx';
import { environment, location } from './route.ts';
import { ChangePassword } from './screens/ChangePassword.tsx';
import { Device } from './screens/Device.tsx';
import { Home } from './screens/Home.tsx';
import { Import } from './screens/Import.tsx';
import { ListView } from './screens/ListView.tsx';
import { Outbox } from './screens/Outbox.tsx';
import { RecordPage } from './screens/RecordPage.tsx';
import { Search } from './screens/Search.tsx';
import { SignIn } from './screens/SignIn.tsx';
import { Trash } from './screens/Trash.tsx';
import { loadSession, session } from './session.ts';

/** The screen for the path below the environment. */
function Screen() {
  const { path, query } = location.value;
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'views' && parts[1]) return <ListView name={parts[1]} />;
  if (parts[0] === 'records' && parts[1] && parts[2]) return <RecordPage object={parts[1]} id={parts[2]} from={query.get('view')} />;
  if (parts[0] === 'trash' && parts[1]) return <Trash object={parts[1]} />;
  if (parts[0] === 'import' && parts[1]) return <Import object={parts[1]} />;
  if (parts[0] === 'search') return <Search q={query.get('q') ?? ''} />;
  if (parts[0] === 'device') return <Device />;
  if (parts[0] === 'outbox') return <Outbox />;
  if (parts.length === 0) return <Home />;
  return <section><h1>Not found</h1><p>There is no screen at this address.</p></section>;
}

export function App() {
  const env = environment.value;
  useEffect(() => {
    forgetCatalog();
    void loadSession();
  }, [env]);
  const state = session.value;
  useEffect(() => {
    if (state.status !== 'signedIn') forgetCatalog();
  }, [state.status]);
  if (state.status === 'loading') return <main id="main" class="auth-screen"><p aria-busy="true">Loading…</p></main>;
  if (state.status === 'signedOut') return <SignIn reason={state.reason} />;
  if (state.status === 'expired') return <ChangePassword />;
  return <Shell><Screen /></Shell>;
}
