/** A request view as far as the users it names go. */
interface Mentions {
  submittedBy: string;
  steps?: Array<{ approvers?: string[]; waitingFor?: string[]; groups?: Array<{ approvers?: string[] }> }>;
  decisions?: Array<{ userId: string | null; detail: unknown }>;
}

const ids = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The user ids a request view names: its submitter, the current step's approvers, who decided, and whom a reassign or an escalation moved. */
export function mentionedUsers(view: Mentions): string[] {
  const found = new Set<string>([view.submittedBy]);
  for (const step of view.steps ?? []) {
    for (const id of [...(step.approvers ?? []), ...(step.waitingFor ?? []), ...(step.groups ?? []).flatMap((g) => g.approvers ?? [])]) found.add(id);
  }
  for (const decision of view.decisions ?? []) {
    if (decision.userId) found.add(decision.userId);
    const detail = (decision.detail ?? {}) as Record<string, unknown>;
    for (const id of [...ids(detail.to), ...ids(detail.from)]) found.add(id);
  }
  return [...found];
}
