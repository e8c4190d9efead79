/**
 * A real OpenID Connect provider (oidc-provider) on 127.0.0.1 for the sign-in tests. Its login and
 * consent interaction signs the test user in at once, as a browser session with that user would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const IDP_USER = { sub: 'idp-user-1', email: 'grace@idp.example.com', name: 'Grace Hopper' };

export interface TestIdp {
  issuer: string;
  discoveryUrl: string;
  clientId: string;
  clientSecret: string;
  /** Interactions completed (one per sign-in that needed a login). */
  logins: number;
  close(): Promise<void>;
}

export async function startIdp(redirectUris: string[], clientSecret = 'osr-test-client-secret-0123456789'): Promise<TestIdp> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'osr-test-client';
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    }],
    async findAccount(_ctx: unknown, id: string) {
      if (id !== IDP_USER.sub) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, email: IDP_USER.email, email_verified: true, name: IDP_USER.name }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['idp-cookie-key-0123456789'] },
  });
  const handler = provider.callback();
  const state = { logins: 0 };
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return handler(req, res);
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          state.logins += 1;
          await provider.interactionFinished(req, res, { login: { accountId: IDP_USER.sub } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = new provider.Grant({ accountId: details.session!.accountId, clientId });
        grant.addOIDCScope(String(details.params.scope ?? 'openid'));
        await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
    })();
  });
  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    clientId,
    clientSecret,
    get logins() { return state.logins; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
