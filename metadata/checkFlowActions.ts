import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import type { ResolvedAction } from './actionTypes.ts';
import type { ResolvedFlow } from './flowTypes.ts';
import { metadataError } from './metadataError.ts';

/** Every action of `run.type: 'flow'` names a declared flow that an action may start. */
export function checkFlowActions(actions: ResolvedAction[], flows: ResolvedFlow[]): { errors: CodedError[]; actions: Set<string> } {
  const byName = new Map(flows.map((f) => [f.name, f]));
  const errors: CodedError[] = [];
  const refused = new Set<string>();
  for (const action of actions) {
    if (action.run.type !== 'flow') continue;
    const flow = byName.get(action.run.flow);
    if (!flow || !startableByAction(flow)) refused.add(action.name);
    if (!flow) {
      const near = suggest(action.run.flow, [...byName.keys()]);
      errors.push(metadataError(action.source, 'run.flow', `unknown flow '${action.run.flow}'${near ? ` (did you mean '${near}'?)` : `; declared flows: ${[...byName.keys()].sort().join(', ') || 'none'}`}`));
    } else if (!startableByAction(flow)) {
      errors.push(metadataError(action.source, 'run.flow', `flow '${flow.name}' is a ${flow.start?.timeRelative ? 'time-relative' : flow.type} flow: an action starts autolaunched flows only`));
    }
  }
  return { errors, actions: refused };
}

/** Flows an action of `run.type: 'flow'` may start: autolaunched ones the API starts (no time-relative start). */
export function startableByAction(flow: ResolvedFlow): boolean {
  return flow.type === 'autolaunched' && !flow.start?.timeRelative;
}

