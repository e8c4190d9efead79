import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type BuildValidator = ReturnType<typeof AjvCompiler>;
type RouteValidation = Parameters<ReturnType<BuildValidator>>[0];
type Validate = ReturnType<ReturnType<BuildValidator>>;
type BuildSerializer = ReturnType<typeof SerializerSelector>;

export interface RouteCompilers {
  /** fastify's `schemaController.compilersFactory`. */
  factory: { buildValidator: BuildValidator; buildSerializer: BuildSerializer };
  /**
   * Compiles every route validator not compiled yet, one at a time with the event loop free in
   * between (requests are answered meanwhile). Rejects naming the first schema that does not compile.
   */
  compileRemaining(): Promise<void>;
}

/**
 * fastify's own compilers (Ajv for validation, fast-json-stringify for responses), with two changes
 * for boot time. A route validator is compiled on the route's first request or by
 * `compileRemaining`, whichever comes first, instead of while routes are mounted: each API route is
 * mounted at four URLs plus HEAD twins, and Ajv's code generation was most of the mounting time.
 * A response serializer is built once per schema object instead of once per mounted URL
 * (fast-json-stringify keeps no cache; the http plugin makes equal schemas one object).
 */
export function routeCompilers(): RouteCompilers {
  const pending = new Set<() => Validate>();
  const validators = AjvCompiler();
  const buildValidator: BuildValidator = (externalSchemas, options) => {
    const compile = validators(externalSchemas, options);
    return (route) => {
      let compiled: Validate | undefined;
      const get = (): Validate => {
        if (!compiled) {
          compiled = compileOrDescribe(compile, route);
          pending.delete(get);
        }
        return compiled;
      };
      pending.add(get);
      const validate = ((data: unknown) => get()(data)) as Validate;
      // fastify reads the errors of a failed validation from the function it was given.
      Object.defineProperty(validate, 'errors', { get: () => compiled?.errors ?? null });
      return validate;
    };
  };
  const serializers = SerializerSelector();
  const buildSerializer: BuildSerializer = (externalSchemas, options) => {
    const build = serializers(externalSchemas, options);
    const bySchema = new WeakMap<object, ReturnType<ReturnType<BuildSerializer>>>();
    return (route) => {
      const schema = route.schema;
      if (typeof schema !== 'object' || schema === null) return build(route);
      let serializer = bySchema.get(schema);
      if (!serializer) {
        serializer = build(route);
        bySchema.set(schema, serializer);
      }
      return serializer;
    };
  };
  return {
    factory: { buildValidator, buildSerializer },
    async compileRemaining() {
      for (const get of [...pending]) {
        get();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

function compileOrDescribe(compile: (route: RouteValidation) => Validate, route: RouteValidation): Validate {
  try {
    return compile(route);
  } catch (error) {
    const part = route.httpPart ?? 'schema';
    throw new Error(`the ${part} schema of ${route.method ?? ''} ${route.url ?? ''} does not compile: ${(error as Error).message}`, { cause: error });
  }
}
