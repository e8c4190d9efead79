import { useEffect, useRef } from 'preact/hooks';
import { forgetCatalog } from './catalog.ts';
import { AdminLoader } from './components/AdminLoader.tsx';
import { InsightsLoader } from './components/InsightsLoader.tsx';
import { ChatLoader } from './components/ChatLoader.tsx';
import { Shell } from './components/Shell.tsx';
import { OpsLoader } from './ops/OpsLoader.tsx';
import { environment, location } from './route.ts';
import { Account } from './screens/Account.tsx';
import { ApiKeys } from './screens/ApiKeys.tsx';
import { forgetInbox } from './inbox.ts';
import { AiAction } from './screens/AiAction.tsx';
import { AiActions } from './screens/AiActions.tsx';
import { ApprovalRequest } from './screens/ApprovalRequest.tsx';
import { Approvals } from './screens/Approvals.tsx';
import { ChangePassword } from './screens/ChangePassword.tsx';
import { Delegations } from './screens/Delegations.tsx';
import { Device } from './screens/Device.tsx';
import { Home } from './screens/Home.tsx';
import { Import } from './screens/Import.tsx';
import { ListView } from './screens/ListView.tsx';
import { Notifications } from './screens/Notifications.tsx';
import { Outbox } from './screens/Outbox.tsx';
import { RecordPage } from './screens/RecordPage.tsx';
import { ResetPassword } from './screens/ResetPassword.tsx';
import { Search } from './screens/Search.tsx';
import { SignIn } from './screens/SignIn.tsx';
import { TwoFactor } from './screens/TwoFactor.tsx';
import { Trash } from './screens/Trash.tsx';
import { currentUser, isAdmin, loadSession, session } from './session.ts';
import { loadSignInMethods } from './signInMethods.ts';

/**
 * The screen for the path below the environment. A screen of one record, view or object is keyed
 * by it: another address mounts it afresh, so that it never shows the previous one's data (not
 * even for the frame before its effects run) nor takes an answer meant for it.
 */
function Screen() {
  const { path, query } = location.value;
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'views' && parts[1]) return <ListView key={parts[1]} name={parts[1]} />;
  if (parts[0] === 'records' && parts[1] && parts[2]) {
    const from = query.get('view');
    return <RecordPage key={`${parts[1]}/${parts[2]}?${from ?? ''}`} object={parts[1]} id={parts[2]} from={from} />;
  }
  if (parts[0] === 'trash' && parts[1]) return <Trash key={parts[1]} object={parts[1]} />;
  if (parts[0] === 'import' && parts[1]) return <Import key={parts[1]} object={parts[1]} />;
  if (parts[0] === 'search') return <Search key={query.get('q') ?? ''} q={query.get('q') ?? ''} />;
  if (parts[0] === 'device') return <Device />;
  if (parts[0] === 'outbox') return <Outbox />;
  if (parts[0] === 'keys') return <ApiKeys />;
  if (parts[0] === 'reports' || parts[0] === 'dashboards') return <InsightsLoader parts={parts} />;
  if (parts[0] === 'delegations') return <Delegations />;
  if (parts[0] === 'admin') {
    // Members get no link and the API refuses them; the screens' code is not even loaded for them.
    if (!isAdmin(currentUser())) return <section><h1>Administrators only</h1><p>This screen is for the environment's administrators.</p></section>;
    return <AdminLoader parts={parts.slice(1)} query={query} />;
  }
  if (parts[0] === 'approvals' && parts[1]) return <ApprovalRequest key={parts[1]} id={parts[1]} />;
  if (parts[0] === 'approvals') return <Approvals />;
  if (parts[0] === 'ai-actions' && parts[1]) return <AiAction key={parts[1]} id={parts[1]} />;
  if (parts[0] === 'ai-actions') return <AiActions />;
  if (parts[0] === 'notifications') return <Notifications />;
  if (parts[0] === 'ops') return <OpsLoader parts={parts.slice(1)} />;
  if (parts[0] === 'chat') return <ChatLoader id={parts[1] ?? null} />;
  if (parts[0] === 'account') return <Account />;
  if (parts.length === 0) return <Home />;
  return <section><h1>Not found</h1><p>There is no screen at this address.</p></section>;
}

export function App() {
  const env = environment.value;
  const first = useRef(true);
  useEffect(() => {
    forgetCatalog();
    forgetInbox();
    // Another environment: nothing of the one before is shown while its session is read.
    if (!first.current) session.value = { status: 'loading' };
    first.current = false;
    void loadSession();
    void loadSignInMethods();
  }, [env]);
  const state = session.value;
  useEffect(() => {
    if (state.status !== 'signedIn') { forgetCatalog(); forgetInbox(); }
  }, [state.status]);
  // The page a password-reset link leads to: whoever follows it, signed in or not.
  if (location.value.path === '/reset-password') return <ResetPassword />;
  if (state.status === 'loading') return <main id="main" class="auth-screen"><p aria-busy="true">Loading…</p></main>;
  if (state.status === 'signedOut') return <SignIn reason={state.reason} />;
  if (state.status === 'secondFactor') return <TwoFactor />;
  if (state.status === 'expired') return <ChangePassword />;
  return <Shell key={env ?? ''}><Screen /></Shell>;
}
