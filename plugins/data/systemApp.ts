import { fileURLToPath } from 'node:url';

/** The engine's own objects (positions, permission sets, shares, ...), contributed as a metadata app. */
export const SYSTEM_APP_DIR = fileURLToPath(new URL('./system-app', import.meta.url));
