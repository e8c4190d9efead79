import { useState } from 'preact/hooks';

/** Copies a text to the clipboard and says so (or says it could not, so the user selects it by hand). */
export function CopyButton({ text, label = 'Copy', id }: { text: string; label?: string; id?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span class="copy">
      <button type="button" id={id} onClick={() => void copy()}>{label}</button>
      <span role="status" class="muted">{state === 'copied' ? ' Copied.' : state === 'failed' ? ' The browser refused to copy: select the text and copy it.' : ''}</span>
    </span>
  );
}
