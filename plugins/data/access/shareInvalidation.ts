import type { EventsBus } from '../../../capabilities/eventsBus.ts';
import type { AccessService } from './accessService.ts';

/**
 * Grants (and the read plans built on them) dropped in one process are dropped in every process:
 * the change is published on the events bus, and what other processes publish is applied here.
 */
export function shareInvalidation(access: AccessService, bus: EventsBus | undefined): AccessService {
  if (!bus) return access;
  const local = access.invalidate.bind(access);
  bus.subscribe('access.changed', ({ environmentId }) => local(environmentId));
  return {
    ...access,
    invalidate(environmentId) {
      local(environmentId);
      bus.publish('access.changed', { environmentId });
    },
  };
}
