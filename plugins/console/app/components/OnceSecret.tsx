import { CopyButton } from './CopyButton.tsx';

/**
 * A secret the API answers once (an API key, a one-time password): shown with a copy button until
 * the user closes it; the console keeps it nowhere else, so closing it is the last look.
 */
export function OnceSecret({ title, value, note, onClose }: { title: string; value: string; note: string; onClose(): void }) {
  return (
    <div class="notice success once-secret" role="region" aria-label={title}>
      <strong>{title}</strong>
      <p><code class="secret" id="once-secret">{value}</code></p>
      <p>{note}</p>
      <CopyButton text={value} id="copy-secret" />
      <button type="button" id="close-secret" onClick={onClose}>Done</button>
    </div>
  );
}
