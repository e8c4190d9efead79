import semver from 'semver';
import { codedError, type CodedError } from './errors.ts';

/** The plugin and app protocol this runtime speaks. A manifest's `kernel` range must include it. */
export const PROTOCOL_VERSION = '16.0.0';

export type ProtocolSubject = 'Plugin' | 'App package';

/** Returns the coded error for an incompatible range, or null when compatible. */
export function checkProtocol(kind: ProtocolSubject, name: string, version: string, range: string): CodedError | null {
  if (semver.validRange(range) === null) {
    return codedError('KERNEL_PROTOCOL_INCOMPATIBLE', {
      kind, plugin: name, version, range, protocol: PROTOCOL_VERSION,
      fix: `declare a valid semver range such as '^${semver.major(PROTOCOL_VERSION)}.0.0'`,
    });
  }
  if (semver.satisfies(PROTOCOL_VERSION, range)) return null;
  const min = semver.minVersion(range);
  const older = min !== null && semver.gt(PROTOCOL_VERSION, min);
  const fix = older
    ? `upgrade '${name}' to a release built for protocol ${semver.major(PROTOCOL_VERSION)}.x`
    : `upgrade the runtime to a release whose protocol satisfies '${range}', or use an older release of '${name}'`;
  return codedError('KERNEL_PROTOCOL_INCOMPATIBLE', { kind, plugin: name, version, range, protocol: PROTOCOL_VERSION, fix });
}
