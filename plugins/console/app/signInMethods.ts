import { signal } from '@preact/signals';
import { api } from './api.ts';

/** `GET /auth/methods`: what the sign-in screen offers and the account screen lets a user set up. */
export interface SignInMethods {
  password: boolean;
  passkey: boolean;
  magicLink: boolean;
  twoFactor: boolean;
}

const PASSWORD_ONLY: SignInMethods = { password: true, passkey: false, magicLink: false, twoFactor: false };

/** null until the server answered (then the screens show what it offers; on a failure, password only). */
export const signInMethods = signal<SignInMethods | null>(null);

export async function loadSignInMethods(): Promise<void> {
  try {
    signInMethods.value = { ...PASSWORD_ONLY, ...(await api<Partial<SignInMethods>>('/auth/methods')) };
  } catch {
    signInMethods.value = PASSWORD_ONLY;
  }
}
