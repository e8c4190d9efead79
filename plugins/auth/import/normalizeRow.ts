import { isEmail } from '../createUser.ts';
import type { RawRow } from './readImportRows.ts';

export interface RowError {
  field: string;
  message: string;
}

export interface ImportCandidate {
  email: string | null;
  name: string | null;
  phone: string | null;
  errors: RowError[];
}

/** The domain of placeholder emails of phone-only accounts: reserved, so never deliverable. */
export const PLACEHOLDER_DOMAIN = 'phone.invalid';

export function placeholderEmail(phone: string): string {
  return `${phone.replace(/\D/g, '')}@${PLACEHOLDER_DOMAIN}`;
}

export const isPlaceholderEmail = (email: string) => email.endsWith(`@${PLACEHOLDER_DOMAIN}`);

/** E.164 after removing spaces, dashes, dots and parentheses: `+` then 7 to 15 digits. */
export function normalizePhone(value: string): string | null {
  const compact = value.replace(/[\s\-.()]/g, '');
  return /^\+[1-9]\d{6,14}$/.test(compact) ? compact : null;
}

/** Validate and normalize one row; every problem is reported, not only the first. */
export function normalizeRow(raw: RawRow): ImportCandidate {
  const errors: RowError[] = raw.invalid.map((field) => ({ field, message: 'must be text' }));
  const email = raw.email === '' ? null : raw.email.toLowerCase();
  if (email !== null && !isEmail(email)) errors.push({ field: 'email', message: 'is not an email address' });
  if (email !== null && isPlaceholderEmail(email)) errors.push({ field: 'email', message: `addresses @${PLACEHOLDER_DOMAIN} are reserved for phone-only accounts` });
  let phone: string | null = null;
  if (raw.phone !== '') {
    phone = normalizePhone(raw.phone);
    if (!phone) errors.push({ field: 'phone', message: 'must be an international number such as +4915112345678' });
  }
  if (email === null && raw.phone === '') errors.push({ field: 'email', message: 'is required (or a phone)' });
  if (raw.name.length > 200) errors.push({ field: 'name', message: 'is longer than 200 characters' });
  return { email, name: raw.name === '' ? null : raw.name, phone, errors };
}
