import { readFileSync } from 'node:fs';

/** The product version (one synchronized number for every package). */
export const RUNTIME_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
