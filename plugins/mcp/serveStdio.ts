import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { FastifyRequest } from 'fastify';
import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { AuthSession, Principal } from '../../capabilities/authSession.ts';
import type { McpServerService } from '../../capabilities/mcpServer.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { CallerOf } from './createMcpServer.ts';

const KEY_PREFIX = 'osk_';
const FIX = 'mint a key with POST /api/v1/keys (signed in as the user the agent acts for) and set OS_MCP_STDIO_API_KEY to it';

/**
 * `serveStdio`: the tools over a stdio pair as the holder of an API key. The key goes through the
 * same verifier as an HTTP request's, at the start and again before every request, so a key
 * revoked meanwhile stops the session's next call.
 */
export function createStdioService(deps: {
  auth: AuthSession;
  grants: AccessGrants;
  defaultEnvironment: string;
  createServer: (callerOf: CallerOf) => Promise<Server>;
}): McpServerService {
  return {
    async serveStdio({ apiKey, environmentId, input, output }) {
      const environment = environmentId ?? deps.defaultEnvironment;
      if (!apiKey.startsWith(KEY_PREFIX)) throw codedError('MCP_STDIO_KEY_INVALID', { reason: `is not an API key (they start with ${KEY_PREFIX})`, fix: FIX });
      const verify = async (): Promise<Principal | null> => {
        // The verifier reads a request's headers and environment; a stdio session has only its key.
        const request = { headers: { authorization: `Bearer ${apiKey}` }, environmentId: environment, method: 'POST', protocol: 'http', host: 'localhost' } as unknown as FastifyRequest;
        const found = await Promise.resolve(deps.auth.authenticate(request)).catch((error: unknown) => {
          if (isCodedError(error) && error.code === 'UNAUTHENTICATED') return null;
          throw error;
        });
        return found ? deps.grants.resolve(found) : null;
      };
      if (!(await verify())) throw codedError('MCP_STDIO_KEY_INVALID', { reason: 'was not accepted: it is unknown, revoked or expired, or its user is banned', fix: FIX });
      let calls = 0;
      const callerOf: CallerOf = async () => {
        const principal = await verify();
        if (!principal) throw codedError('UNAUTHENTICATED', {}, 'The API key of this stdio session is no longer valid (revoked or expired); restart with a valid OS_MCP_STDIO_API_KEY.');
        if (principal.mustChangePassword) throw codedError('PASSWORD_EXPIRED', { subjectId: principal.userId });
        return { environmentId: environment, principal, requestId: `stdio-${++calls}` };
      };
      const server = await deps.createServer(callerOf);
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const transport = new StdioServerTransport(input, output);
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
      });
      // The client went away: end the session (the transport itself only stops reading).
      input.once('end', () => void server.close());
      await server.connect(transport);
      return { closed, close: () => server.close() };
    },
  };
}
