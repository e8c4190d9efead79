/**
 * Headless Chromium with virtual WebAuthn authenticators (CDP), and a page script that runs the
 * passkey ceremonies against the runtime's auth routes with plain fetch and navigator.credentials.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumPresent = (): boolean => existsSync(CHROMIUM);

/** What the page script answers: the HTTP status and JSON body of the last call, or the browser's error. */
export interface CeremonyResult {
  status: number;
  body: Record<string, unknown> | unknown[] | null;
  /** The `set-auth-token` response header. */
  token?: string | null;
  /** Where a ceremony stopped early: 'options', 'create' or 'get'. */
  step?: string;
  error?: string;
  /** The assertion sent, for replays. */
  assertion?: Record<string, unknown>;
}

export interface AuthenticatorSpec {
  hasUserVerification: boolean;
  isUserVerified: boolean;
}

export interface PasskeyPage {
  page: Page;
  /** `auth`: the auth base path, e.g. `/api/v1/auth` or `/api/v1/environments/x/auth`. */
  register(auth: string, name: string): Promise<CeremonyResult>;
  /** `userVerification`: what this client asks of the authenticator instead of the server's preference. */
  authenticate(auth: string, options?: { tamper?: boolean; userVerification?: 'discouraged' | 'preferred' | 'required' }): Promise<CeremonyResult>;
  call(method: string, url: string, body?: unknown): Promise<CeremonyResult>;
  /** Credential ids held by the virtual authenticator (base64url). */
  credentialIds(): Promise<string[]>;
  /** Move the page to another runtime origin (the authenticator stays). */
  goto(base: string): Promise<void>;
}

// Plain browser JavaScript (not compiled): base64url <-> ArrayBuffer and the two ceremonies.
const PAGE_SCRIPT = `(() => {
  const toBuf = (s) => {
    const b = s.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b + '='.repeat((4 - (b.length % 4)) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  };
  const fromBuf = (buf) => {
    let bin = '';
    for (const byte of new Uint8Array(buf)) bin += String.fromCharCode(byte);
    return btoa(bin).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  };
  const call = async (method, url, body) => {
    const init = { method, credentials: 'same-origin', headers: {} };
    if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    const res = await fetch(url, init);
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch (e) { json = null; }
    return { status: res.status, body: json, token: res.headers.get('set-auth-token') };
  };
  const failure = (step, e) => ({ status: 0, body: null, step, error: (e && e.name) + ': ' + (e && e.message) });
  const descriptors = (list) => (list || []).map((c) => ({ type: 'public-key', id: toBuf(c.id), transports: c.transports }));
  window.osrPasskey = {
    call,
    async register(auth, name) {
      const options = await call('GET', auth + '/passkey/generate-register-options');
      if (options.status !== 200) return { ...options, step: 'options' };
      const o = options.body;
      let credential;
      try {
        credential = await navigator.credentials.create({ publicKey: {
          rp: o.rp, pubKeyCredParams: o.pubKeyCredParams, timeout: o.timeout, attestation: o.attestation,
          authenticatorSelection: o.authenticatorSelection,
          challenge: toBuf(o.challenge),
          user: { id: toBuf(o.user.id), name: o.user.name, displayName: o.user.displayName },
          excludeCredentials: descriptors(o.excludeCredentials),
        } });
      } catch (e) { return failure('create', e); }
      const r = credential.response;
      const response = {
        id: credential.id, rawId: fromBuf(credential.rawId), type: credential.type,
        response: { clientDataJSON: fromBuf(r.clientDataJSON), attestationObject: fromBuf(r.attestationObject), transports: r.getTransports() },
        clientExtensionResults: credential.getClientExtensionResults(),
        authenticatorAttachment: credential.authenticatorAttachment || undefined,
      };
      return call('POST', auth + '/passkey/verify-registration', { response, name });
    },
    async authenticate(auth, opts) {
      const options = await call('GET', auth + '/passkey/generate-authenticate-options');
      if (options.status !== 200) return { ...options, step: 'options' };
      const o = options.body;
      // A tampered run signs another challenge than the one the server issued.
      const challenge = opts && opts.tamper ? crypto.getRandomValues(new Uint8Array(32)).buffer : toBuf(o.challenge);
      let credential;
      try {
        credential = await navigator.credentials.get({ publicKey: {
          challenge, rpId: o.rpId, timeout: o.timeout, userVerification: (opts && opts.userVerification) || o.userVerification,
          allowCredentials: descriptors(o.allowCredentials),
        } });
      } catch (e) { return failure('get', e); }
      const r = credential.response;
      const assertion = {
        id: credential.id, rawId: fromBuf(credential.rawId), type: credential.type,
        response: {
          clientDataJSON: fromBuf(r.clientDataJSON), authenticatorData: fromBuf(r.authenticatorData),
          signature: fromBuf(r.signature), userHandle: r.userHandle ? fromBuf(r.userHandle) : undefined,
        },
        clientExtensionResults: credential.getClientExtensionResults(),
        authenticatorAttachment: credential.authenticatorAttachment || undefined,
      };
      const result = await call('POST', auth + '/passkey/verify-authentication', { response: assertion });
      return { ...result, assertion };
    },
  };
})();`;

/** One headless Chromium for the whole file. */
export async function launchChromium(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  t.teardown(() => browser.close());
  return browser;
}

/**
 * A page on the runtime's origin (`base`, http://localhost:port: a secure context) with its own
 * virtual authenticator: resident keys, internal transport, user verification as given.
 */
export async function passkeyPage(context: BrowserContext, base: string, spec: AuthenticatorSpec = { hasUserVerification: true, isUserVerified: true }): Promise<PasskeyPage> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, automaticPresenceSimulation: true, ...spec },
  });
  await page.addInitScript({ content: PAGE_SCRIPT });
  const goto = async (origin: string) => {
    const landing = await page.goto(`${origin}/api/v1/health`);
    if (landing?.status() !== 200) throw new Error(`${origin}/api/v1/health answered ${landing?.status()}`);
  };
  await goto(base);
  // Only the page in front has focus, and WebAuthn works only there.
  const run = async (expression: string) => {
    await page.bringToFront();
    return page.evaluate(expression) as Promise<CeremonyResult>;
  };
  return {
    page,
    register: (auth, name) => run(`window.osrPasskey.register(${JSON.stringify(auth)}, ${JSON.stringify(name)})`),
    authenticate: (auth, options = {}) => run(`window.osrPasskey.authenticate(${JSON.stringify(auth)}, ${JSON.stringify(options)})`),
    call: (method, url, body) => run(`window.osrPasskey.call(${JSON.stringify(method)}, ${JSON.stringify(url)}, ${body === undefined ? 'undefined' : JSON.stringify(body)})`),
    async credentialIds() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials.map((c) => c.credentialId.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
    },
    goto,
  };
}
