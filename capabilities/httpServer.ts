import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { defineCapability } from './defineCapability.ts';

export interface HttpServer {
  /** Run a request through the full stack without a socket (tests, tools). */
  inject(options: InjectOptions | string): Promise<LightMyRequestResponse>;
  /** Listening address once ready, e.g. `http://127.0.0.1:3000`; null when not listening. */
  url(): string | null;
}

export const httpServer = defineCapability<HttpServer>()({
  id: 'http.server',
  cardinality: 'single',
  description: 'The running HTTP server: in-process requests and its address (for the host, tests and tools).',
});
