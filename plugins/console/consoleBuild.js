// @ts-check
/**
 * What the console's build writes and where, in one place for bin/buildConsole.js (which writes
 * it), the plugin that serves it (consoleFiles.ts, consoleRoutes.ts) and the tests that read it.
 * Plain JavaScript: the build step imports it before anything is compiled.
 */

/** Where the built app goes, relative to the compiled tree. */
export const CONSOLE_OUT = 'console';
/** The build's manifest, beside the app's page: what was written (ConsoleManifest). */
export const CONSOLE_MANIFEST = 'console.json';
/** The URL the built files are served under. */
export const ASSET_BASE = '/console/assets/';

/**
 * One built file: its content type and its sizes as is, gzip and brotli.
 * @typedef {{ type: string, bytes: number, gzip: number, brotli: number }} BuiltFile
 */

/**
 * The build's manifest: the entry script and style sheet, the scripts the page loads before
 * anything else (what the 150 KB gzip budget bounds), and every file by name.
 * @typedef {{ script: string, style: string, initial: string[], files: Record<string, BuiltFile> }} ConsoleManifest
 */
