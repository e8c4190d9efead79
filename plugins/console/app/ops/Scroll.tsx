import type { ComponentChildren } from 'preact';

/** A table that may scroll sideways: a labelled region the keyboard can reach and scroll. */
export function Scroll({ label, children }: { label: string; children: ComponentChildren }) {
  return <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>{children}</div>;
}
