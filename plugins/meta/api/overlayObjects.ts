import { fileURLToPath } from 'node:url';

/** Engine-owned objects of the metadata API, declared in ./system-app (apiEnabled false: never on /data). */
export const OVERLAY_OBJECT = 'sys_meta_overlay';
export const HISTORY_OBJECT = 'sys_meta_history';

export const OVERLAY_APP_DIR = fileURLToPath(new URL('./system-app', import.meta.url));
