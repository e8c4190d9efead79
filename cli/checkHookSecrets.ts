import { codedError } from '../kernel/errors.ts';
import type { ResolvedFlow } from '../metadata/flowTypes.ts';
import type { DoctorCheck } from './runDoctor.ts';

/**
 * Inbound hooks whose secret variable is not set in this environment: the server would refuse
 * every call to them with 401, which a sender sees only as a wrong signature.
 */
export function checkHookSecrets(flows: readonly ResolvedFlow[], env: NodeJS.ProcessEnv): DoctorCheck {
  const hooked = flows.filter((f) => f.hook);
  const unset = hooked.filter((f) => !env[f.hook!.secretEnv]);
  if (unset.length === 0) return { name: 'hooks', ok: true, detail: `${hooked.length} inbound hook(s), each secret variable set` };
  return {
    name: 'hooks', ok: false, detail: `${unset.length} of ${hooked.length} inbound hook(s) have no secret: their calls are refused`,
    problems: unset.map((f) => {
      const error = codedError('HOOK_SECRET_UNSET', { flow: f.name, hookId: f.hook!.id, env: f.hook!.secretEnv });
      return { code: error.code, message: error.message };
    }),
  };
}
