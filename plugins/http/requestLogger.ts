import type { FastifyBaseLogger } from 'fastify';
import type { ChildLoggerOptions } from 'pino';
import type { Logger } from '../../kernel/logger.ts';

type Bindings = Record<string, unknown>;
type LogArgs = [unknown, ...unknown[]];

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

  private get real(): Logger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  fatal(...args: LogArgs): void {
    (this.real.fatal as (...a: LogArgs) => void)(...args);
  }

  error(...args: LogArgs): void {
    (this.real.error as (...a: LogArgs) => void)(...args);
  }

  warn(...args: LogArgs): void {
    (this.real.warn as (...a: LogArgs) => void)(...args);
  }

  info(...args: LogArgs): void {
    (this.real.info as (...a: LogArgs) => void)(...args);
  }

  debug(...args: LogArgs): void {
    (this.real.debug as (...a: LogArgs) => void)(...args);
  }

  trace(...args: LogArgs): void {
    (this.real.trace as (...a: LogArgs) => void)(...args);
  }

  silent(...args: LogArgs): void {
    (this.real.silent as (...a: LogArgs) => void)(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options) as unknown as FastifyBaseLogger;
  }
}

/** fastify's childLoggerFactory: a RequestLogger in place of a pino child per request. */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(logger as unknown as Logger, bindings, options);
}
