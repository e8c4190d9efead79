import { ApiError } from '../api.ts';

/** An API error as the user reads it: its message, its code, and the fix the server gave. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : null;
  return (
    <div class="notice error" role="alert">
      <strong>{message}</strong>
      {code ? <span class="code"> ({code})</span> : null}
    </div>
  );
}
