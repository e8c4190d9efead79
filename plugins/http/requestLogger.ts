import type { FastifyBaseLogger } from 'fastify';
import type { ChildLoggerOptions } from 'pino';
import type { Logger } from '../../kernel/logger.ts';

type Bindings = Record<string, unknown>;
type LogMethod = (...args: [unknown, ...unknown[]]) => void;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// The level methods are set on the prototype below, one per level.
export interface RequestLogger extends Record<(typeof LEVELS)[number], LogMethod> {}

/**
 * A request's logger (`request.log`), made only when something is logged through it. Most
 * requests log nothing, and a pino child per request cost more than routing the request.
 * Every call goes to the child of the server's logger with the request's bindings (its id).
 */
export class RequestLogger implements FastifyBaseLogger {
  #child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child, made on first use. */
  logger(): Logger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options) as unknown as FastifyBaseLogger;
  }
}

for (const level of LEVELS) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value(this: RequestLogger, ...args: [unknown, ...unknown[]]) {
      (this.logger()[level] as LogMethod)(...args);
    },
  });
}

/** fastify's childLoggerFactory: a RequestLogger in place of a pino child per request. */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(logger as unknown as Logger, bindings, options);
}
