import { config } from 'zod';

/**
 * Zod compiles a parser for an object schema (with `new Function`) on its first parse. The
 * runtime's schemas (config, plugin options, metadata files) are parsed once or a few times each,
 * mostly while booting, where compiling them cost more than it saved: about 30 to 40 ms of a
 * boot's metadata load. With `jitless` every schema parses by walking its shape, the same result.
 * Imported by createRuntime.ts before any module that defines a schema.
 */
config({ jitless: true });
