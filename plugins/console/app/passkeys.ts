import { api } from './api.ts';

/** Whether this browser speaks WebAuthn with the JSON forms the API sends and reads. */
export function passkeysSupported(): boolean {
  return typeof PublicKeyCredential !== 'undefined'
    && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function'
    && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function';
}

/** The browser's refusals in words: a cancelled or timed-out prompt is the usual one (the browser says no more, by design). */
function ceremonyError(error: unknown): Error {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'NotAllowedError') return new Error('No passkey was used: the request was cancelled, timed out or refused by the authenticator.');
  if (name === 'InvalidStateError') return new Error('This authenticator already holds a passkey for your account.');
  if (name === 'SecurityError') return new Error('Passkeys cannot be used on this address (they need HTTPS, or localhost, on the configured domain).');
  return error instanceof Error ? error : new Error(String(error));
}

async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw ceremonyError(error);
  }
}

/** Registers a passkey for the signed-in user: the server's options, the authenticator, the server's check. */
export async function registerPasskey(name: string): Promise<void> {
  const options = await api<PublicKeyCredentialCreationOptionsJSON>('/auth/passkey/generate-register-options', { query: { name } });
  const credential = await ceremony(() => navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) }));
  if (!(credential instanceof PublicKeyCredential)) throw new Error('No passkey was created.');
  await api('/auth/passkey/verify-registration', { method: 'POST', body: { response: credential.toJSON(), name } });
}

/** Signs in with a passkey the browser holds for this server; the session cookie is set by the answer. */
export async function signInWithPasskey(): Promise<void> {
  const options = await api<PublicKeyCredentialRequestOptionsJSON>('/auth/passkey/generate-authenticate-options');
  const credential = await ceremony(() => navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) }));
  if (!(credential instanceof PublicKeyCredential)) throw new Error('No passkey was chosen.');
  await api('/auth/passkey/verify-authentication', { method: 'POST', body: { response: credential.toJSON() } });
}
