/** Naming rules shared by objects, fields and rules: snake_case, short enough to be a SQL identifier. */
export const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
export const MAX_NAME_LENGTH = 63;

/** Why a name is refused, or null when it is a valid snake_case identifier. */
export function nameProblem(name: string): string | null {
  if (!SNAKE_CASE.test(name)) return `'${name}' must be snake_case (lowercase letters, digits and single underscores, starting with a letter)`;
  if (name.length > MAX_NAME_LENGTH) return `'${name}' is longer than ${MAX_NAME_LENGTH} characters`;
  return null;
}

/** `lead_number` -> `Lead Number`. */
export function humanize(name: string): string {
  return name
    .split('_')
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join(' ');
}

/** English plural of a label, for the default pluralLabel. */
export function pluralize(label: string): string {
  if (/[^aeiou]y$/i.test(label)) return `${label.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(label)) return `${label}es`;
  return `${label}s`;
}
