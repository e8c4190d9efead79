import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from './authSession.ts';
import { defineCapability } from './defineCapability.ts';

/** Who asks, from where: what the identity service needs of an HTTP request. */
export interface AuthRequestContext {
  environmentId: string;
  /** The server's own origin as the client addressed it, e.g. `https://app.example.com`. */
  origin: string;
  /** The Origin header the client sent, or null (non-browser clients). */
  clientOrigin: string | null;
  ip: string;
  userAgent: string | null;
  principal: Principal | null;
}

export interface AuthUser {
  id: string;
  email: string;
  name: string;
  emailVerified: boolean;
  image: string | null;
  role: string;
  mustChangePassword: boolean;
  phoneNumber: string | null;
  phoneNumberVerified: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyInfo {
  id: string;
  name: string | null;
  /** First characters of the key (prefix included), to recognise it; never the secret. */
  start: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** The scopes the key is limited to (`data:read`, `data:write`, `actions:execute`); null: it acts as its user. */
  scopes: string[] | null;
}

export interface CreateUserInput {
  email: string;
  name?: string;
  password?: string;
  generatePassword?: boolean;
  mustChangePassword?: boolean;
}

export type ImportAction = 'create' | 'update' | 'skip' | 'error';
export type ImportDelivery = 'invite_email' | 'invite_sms' | 'temporary_password' | 'none';

export interface ImportUsersInput {
  rows?: Array<Record<string, unknown>>;
  csv?: string;
  /** An .xlsx workbook, base64; the first sheet is read, its first row names the columns. */
  xlsx?: string;
  dryRun?: boolean;
  upsertBy?: 'email' | 'phone';
  passwordPolicy?: 'auto' | 'none';
}

export interface ImportRowResult {
  /** 1-based position among the data rows (the header row is not counted). */
  row: number;
  email: string | null;
  action: ImportAction;
  delivery: ImportDelivery;
  /** Returned once, for created rows that got one. */
  temporaryPassword?: string;
  errors?: Array<{ field: string; message: string }>;
}

export interface ImportUsersResult {
  dryRun: boolean;
  rows: ImportRowResult[];
  summary: {
    created: number;
    updated: number;
    skipped: number;
    errors: number;
    delivery: Record<ImportDelivery, number>;
  };
}

/** How to reach a user: what notifications need, nothing more. */
export interface UserContact {
  id: string;
  name: string;
  /** null for phone-only accounts (their placeholder address reaches nobody). */
  email: string | null;
  /** E.164, set by an admin or verified by the user (users cannot set it unverified themselves). */
  phoneNumber: string | null;
}

/** The sign-in methods the server offers (`GET /auth/methods`): what a sign-in page may show. */
export interface SignInMethods {
  /** `POST /auth/sign-in`: always. */
  password: true;
  /** Passkey sign-in and registration (`plugins.auth.passkeys.enabled`). */
  passkey: boolean;
  /** Mailed sign-in links (`plugins.auth.magicLink.enabled`, with an `email.send` provider). */
  magicLink: boolean;
  /** Phone-number sign-in with texted codes (`auth.plugins.phoneNumber`). */
  phoneNumber: boolean;
  /** Accounts may turn on a second factor (`plugins.auth.twoFactor.enabled`). */
  twoFactor: boolean;
}

/** A session a Cookie header holds in one environment: the environment and its user. */
export interface EnvironmentSession {
  environmentId: string;
  user: { id: string; email: string | null };
}

export type SignInResult =
  | { token: string; user: AuthUser; cookies: string[] }
  | { twoFactorRequired: true; methods: string[]; cookies: string[] };

/**
 * The OAuth 2.1 authorization server for connected agents (plugins.auth.oauthProvider), spoken over
 * the request itself: its endpoints read the raw request and write the answer (redirects, cookies).
 */
export interface OAuthEndpoints {
  /** The issuer (the server's public origin). */
  issuer: string;
  /** Serve one of the server's endpoints (authorize, token, register, revoke, jwks, discovery); `path` replaces the request's. */
  serve(request: FastifyRequest, reply: FastifyReply, path?: string): Promise<void>;
  /** The pending authorization `uid`, for the signed-in user to review: client, requested scopes. */
  interaction(request: FastifyRequest, reply: FastifyReply, uid: string): Promise<unknown>;
  /** The signed-in user's answer to it (the scopes granted, or a denial); redirects back to the flow. */
  consent(request: FastifyRequest, reply: FastifyReply, uid: string, answer: { scopes?: string[]; deny?: boolean }): Promise<unknown>;
  /** RFC 9728 metadata of the resource at this path of the server (`''` for the origin). */
  protectedResource(path: string): Record<string, unknown>;
}

export interface AuthIdentity {
  /** The OAuth authorization server, when it is on; null otherwise. */
  oauth: OAuthEndpoints | null;
  /** Serve a request of the auth engine; its URL path starts with `/api/v1/auth`. Errors throw coded errors. */
  handle(request: Request, context: AuthRequestContext): Promise<Response>;
  /**
   * Password sign-in: a session, or, for an account with a second factor, the cookie that lets
   * `/auth/two-factor/verify-*` finish it.
   */
  signIn(input: { email: string; password: string }, context: AuthRequestContext): Promise<SignInResult>;
  /** Revoke the session carried by these headers (cookie or bearer); returns the cookies that clear it. */
  signOut(headers: Headers, context: AuthRequestContext): Promise<{ cookies: string[] }>;
  createUser(input: CreateUserInput, context: AuthRequestContext): Promise<{ user: AuthUser; temporaryPassword?: string }>;
  importUsers(input: ImportUsersInput, context: AuthRequestContext): Promise<ImportUsersResult>;
  /** Mint a key for the calling user; the secret is in the answer only. */
  mintKey(input: { name?: string; expiresIn?: number; scopes?: string[] }, context: AuthRequestContext): Promise<ApiKeyInfo & { key: string }>;
  listKeys(context: AuthRequestContext): Promise<ApiKeyInfo[]>;
  /** One of the caller's keys; someone else's is NOT_FOUND. */
  getKey(id: string, context: AuthRequestContext): Promise<ApiKeyInfo>;
  revokeKey(id: string, context: AuthRequestContext): Promise<void>;
  /** Contacts of these users (at most 500 ids); unknown ids are left out. For server-side senders, not a route. */
  contactsOf(environmentId: string, userIds: readonly string[]): Promise<UserContact[]>;
  /**
   * The user with this email address (case aside), or null. Not a route: a route that names users
   * by email decides who may ask (an answer tells whether an address has an account).
   */
  userByEmail(environmentId: string, email: string): Promise<UserContact | null>;
  /**
   * A user as a principal, for server-side work done on its behalf (a scheduled report runs as its
   * owner); null when the user is unknown or banned. Positions and permission sets are left to the
   * access layer, as for a signed-in caller. Not a route.
   */
  principalOf(environmentId: string, userId: string): Promise<Principal | null>;
  /** The sign-in methods on for every environment (`GET /auth/methods`). */
  methods(): SignInMethods;
  /**
   * The environments in which this Cookie header holds a valid session (its environment's
   * session cookie, signed by that environment, not expired, its user not banned), in the order
   * of `environments`; a cookie that is not valid is left out, never an error.
   */
  sessionsOf(cookieHeader: string | undefined): Promise<EnvironmentSession[]>;
  /**
   * The user of the session an engine answer's Set-Cookie opened (a sign-in that ends in a
   * redirect: a sign-in link, a provider's callback), for the audit trail; null when it opened
   * none. Not a route.
   */
  sessionUserOf(environmentId: string, setCookies: readonly string[]): Promise<{ id: string; email: string | null } | null>;
}

export const authIdentity = defineCapability<AuthIdentity>()({
  id: 'auth.identity',
  cardinality: 'single',
  description: 'Identity management of each environment: sign-in and sign-out, the auth engine\'s routes, users, imports and API keys.',
});
