import { signal, computed } from '@preact/signals';

/**
 * The app's address is the page's: `/console/<screen>` in the default environment, or
 * `/console/env/<environment>/<screen>`, so a link opens the same record in the same environment.
 * `/device` is the device-flow page.
 */
export const location = signal(readLocation());

interface Place {
  environment: string | null;
  /** The screen's path below the environment, e.g. `/views/account.default`. */
  path: string;
  query: URLSearchParams;
}

function readLocation(): Place {
  const { pathname, search } = window.location;
  const query = new URLSearchParams(search);
  if (pathname === '/device' || pathname.startsWith('/device/')) return { environment: null, path: '/device', query };
  let rest = pathname.replace(/^\/console/, '') || '/';
  let env: string | null = null;
  const m = /^\/env\/([^/]+)(\/.*)?$/.exec(rest);
  if (m) {
    env = decodeURIComponent(m[1]!);
    rest = m[2] ?? '/';
  }
  return { environment: env, path: rest, query };
}

export const environment = computed(() => location.value.environment);

/** The page address of a screen, in the current (or the given) environment. */
export function href(path: string, env: string | null = environment.value): string {
  return `/console${env ? `/env/${encodeURIComponent(env)}` : ''}${path}`;
}

export function navigate(path: string, options: { replace?: boolean; env?: string | null } = {}): void {
  const url = href(path, options.env === undefined ? environment.value : options.env);
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  location.value = readLocation();
  window.scrollTo(0, 0);
}

window.addEventListener('popstate', () => {
  location.value = readLocation();
});

/** Same-origin links inside the app change the screen without a page load. */
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin || !url.pathname.startsWith('/console')) return;
  event.preventDefault();
  history.pushState(null, '', url.pathname + url.search);
  location.value = readLocation();
});
