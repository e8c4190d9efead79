/**
 * Parse options for a zod schema that is parsed once or a few times (config, plugin options and
 * manifests, metadata files), mostly while booting. Zod otherwise compiles a parser for each object
 * schema on its first parse (`new Function` per shape), which pays off only for a schema parsed
 * often: for these it cost 30 to 40 ms of a boot's metadata load. The result is the same.
 * Schemas parsed per request (and those of the auth engine and the MCP SDK) keep zod's default.
 */
export const PARSE_ONCE = { jitless: true } as const;
