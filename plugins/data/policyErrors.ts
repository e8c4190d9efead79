import type { CodedError } from '../../kernel/errors.ts';
import { metadataError } from '../../metadata/metadataError.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { checkPolicy } from './access/compilePolicy.ts';

/**
 * Row policies run as SQL: one outside the compilable subset fails the boot, not a request.
 * The data plugin's start and `osr doctor` both run this check.
 */
export function policyErrors(objects: readonly ResolvedObject[]): CodedError[] {
  return objects.flatMap((object) => object.policies.flatMap((policy, i) => {
    const reason = checkPolicy(policy.condition, object);
    return reason ? [metadataError(object.source, `policies[${i}].condition`, `row policy '${policy.name}' cannot run as a query filter: ${reason}`)] : [];
  }));
}
