/**
 * The slice of the auth engine (better-auth) this plugin uses, typed narrowly: the engine's own
 * inferred types are vast, and nothing outside plugins/auth sees them.
 */
export interface EngineUser {
  id: string;
  email: string;
  name: string;
  emailVerified: boolean;
  image?: string | null;
  role?: string | null;
  banned?: boolean | null;
  banExpires?: Date | string | null;
  must_change_password?: boolean | number | null;
  phoneNumber?: string | null;
  phoneNumberVerified?: boolean | number | null;
  createdAt: Date | string;
  updatedAt: Date | string;
}

export interface EngineSession {
  id: string;
  token: string;
  userId: string;
  expiresAt: Date | string;
}

export interface EngineApiKey {
  id: string;
  name: string | null;
  start: string | null;
  referenceId: string;
  enabled: boolean;
  expiresAt: Date | string | null;
  createdAt: Date | string;
  lastRequest: Date | string | null;
  /** The engine's permissions of the key: ours hold `{ scopes: [...] }`; parsed by the engine's own calls, JSON text when read through the adapter. */
  permissions?: Record<string, string[]> | string | null;
}

export interface EngineWhere {
  field: string;
  value: string | number | boolean | null | string[];
  operator?: 'eq' | 'ne' | 'in' | 'starts_with' | 'lt';
}

export interface EngineContext {
  internalAdapter: {
    findUserByEmail(email: string): Promise<{ user: EngineUser } | null>;
    findUserById(id: string): Promise<EngineUser | null>;
    updateUser(id: string, data: Record<string, unknown>): Promise<unknown>;
    deleteUser(id: string): Promise<void>;
    createVerificationValue(data: { identifier: string; value: string; expiresAt: Date }): Promise<unknown>;
  };
  adapter: {
    findOne<T>(query: { model: string; where: EngineWhere[] }): Promise<T | null>;
    findMany<T>(query: { model: string; where?: EngineWhere[]; limit?: number; sortBy?: { field: string; direction: 'asc' | 'desc' } }): Promise<T[]>;
    delete(query: { model: string; where: EngineWhere[] }): Promise<void>;
    deleteMany(query: { model: string; where: EngineWhere[] }): Promise<number>;
  };
  authCookies: { sessionToken: { name: string } };
  /** The environment's engine secret (signs cookies and bearer tokens). */
  secret: string;
}

export interface CreateEngineUser {
  email: string;
  name: string;
  password?: string;
  role?: string;
  data?: Record<string, unknown>;
}

export interface AuthEngine {
  handler(request: Request): Promise<Response>;
  api: {
    getSession(input: { headers: Headers }): Promise<{ session: EngineSession; user: EngineUser } | null>;
    createUser(input: { body: CreateEngineUser }): Promise<{ user: EngineUser }>;
    createApiKey(input: { body: { userId: string; name?: string; expiresIn?: number | null; permissions?: Record<string, string[]> } }): Promise<EngineApiKey & { key: string }>;
    verifyApiKey(input: { body: { key: string } }): Promise<{ valid: boolean; key: EngineApiKey | null }>;
  };
  $context: Promise<EngineContext>;
}

/** Model names as the engine's adapter knows them (mapped to the sys_* tables). */
export const MODELS = { user: 'user', apiKey: 'apikey' } as const;

/** Table names in the database. */
export const TABLES = {
  user: 'sys_user',
  session: 'sys_session',
  account: 'sys_account',
  verification: 'sys_verification',
  apiKey: 'sys_api_key',
  state: 'sys_auth_state',
  passkey: 'sys_passkey',
} as const;
