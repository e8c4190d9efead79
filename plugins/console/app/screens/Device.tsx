import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { location } from '../route.ts';
import { useSubmit } from '../useSubmit.ts';

/**
 * The device-flow verification page: the signed-in user approves or denies the code a device shows.
 * The code is claimed for the user first (`GET /auth/device?user_code=`): the API decides only on a
 * code its user has claimed.
 */
export function Device() {
  const [code, setCode] = useState(location.value.query.get('user_code') ?? '');
  const [done, setDone] = useState<string | null>(null);
  const decide = useSubmit(async (approve: boolean) => {
    const userCode = code.trim().toUpperCase();
    await api('/auth/device', { query: { user_code: userCode } });
    await api(approve ? '/auth/device/approve' : '/auth/device/deny', { method: 'POST', body: { userCode } });
    setDone(approve ? 'The device is signed in. You can close this page.' : 'The request was denied.');
  });
  return (
    <section class="device card">
      <h1>Connect a device</h1>
      <p>Enter the code the device shows.</p>
      <ErrorNotice error={decide.error} />
      {done ? <p class="notice success" role="status">{done}</p> : (
        <form onSubmit={(e) => decide.onSubmit(e, true)}>
          <label for="device-code">Code</label>
          <input id="device-code" autoComplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)} required />
          <button type="submit" class="primary" disabled={decide.busy}>Approve</button>
          <button type="button" disabled={decide.busy} onClick={() => void decide.run(false)}>Deny</button>
        </form>
      )}
    </section>
  );
}
