import { PasskeyList } from '../components/PasskeyList.tsx';
import { TwoFactorSettings } from '../components/TwoFactorSettings.tsx';
import { session } from '../session.ts';
import { signInMethods } from '../signInMethods.ts';

/** The signed-in user's own account: who they are, their second factor and their passkeys, as the server offers them. */
export function Account() {
  const state = session.value;
  if (state.status !== 'signedIn') return null;
  const { user } = state;
  const methods = signInMethods.value;
  return (
    <section class="account">
      <h1>Your account</h1>
      <dl class="facts">
        <dt>Email</dt><dd id="account-email">{user.email}</dd>
        <dt>Name</dt><dd>{user.name}</dd>
        <dt>Role</dt><dd>{user.role}</dd>
      </dl>
      {methods?.twoFactor ? <TwoFactorSettings user={user} /> : null}
      {methods?.passkey ? <PasskeyList /> : null}
      {methods && !methods.twoFactor && !methods.passkey ? <p class="muted">This server offers no second factor or passkeys.</p> : null}
    </section>
  );
}
