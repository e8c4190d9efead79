import { randomInt } from 'node:crypto';

// No look-alike characters (0/O, 1/l/I): the password is read off a screen and typed once.
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';

/** A one-time password: 16 characters, about 93 bits of entropy. */
export function generatePassword(length = 16): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}
