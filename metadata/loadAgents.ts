import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { agentDefinitionSchema } from './agentSchema.ts';
import { AGENT_ACCESS_OBJECTS, AGENT_TOOLS, AGENT_WRITE_TOOLS, type ResolvedAgent } from './agentTypes.ts';
import { describeIssues } from './describeIssues.ts';
import { metadataError, type MetadataProblem } from './metadataError.ts';
import { humanize, SNAKE_CASE } from './names.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

export interface AgentSource {
  dir: string;
  app: string;
}

/**
 * Reads agents/<name>.{json,ts} of every app: schema (unknown keys refused), names unique across
 * apps, every tool a built-in one or `action_<name>` of a declared action, listed once, and every
 * access object the write tools may target (accessObjects) one of AGENT_ACCESS_OBJECTS, for a write tool.
 */
export async function loadAgents(sources: AgentSource[], actionNames: ReadonlySet<string>): Promise<{ agents: Map<string, ResolvedAgent[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const agents = new Map<string, ResolvedAgent[]>();
  const declaredIn = new Map<string, string>();
  const known = [...AGENT_TOOLS, ...[...actionNames].map((a) => `action_${a}`)];
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'agents'), 'agents');
    errors.push(...read.errors);
    const loaded: ResolvedAgent[] = [];
    for (const { file, stem, ext, value } of read.declarations) {
      const parsed = agentDefinitionSchema.safeParse(value, PARSE_ONCE);
      const problems: MetadataProblem[] = parsed.success ? [] : describeIssues(agentDefinitionSchema, value, parsed.error.issues);
      const name = (value as { name?: unknown } | null)?.name;
      if (typeof name === 'string') {
        if (!SNAKE_CASE.test(name) || name.length > 63) problems.push({ path: 'name', reason: `'${name.slice(0, 80)}' must be snake_case (lowercase letters, digits and single underscores, starting with a letter, at most 63)` });
        if (name !== stem) problems.push({ path: 'name', reason: `agent '${name}' must be declared in a file named ${name}${ext}` });
        const other = declaredIn.get(name);
        if (other) problems.push({ path: 'name', reason: `agent '${name}' is already declared in ${other}` });
        else declaredIn.set(name, file);
      }
      if (parsed.success) {
        const seen = new Set<string>();
        parsed.data.tools.forEach((tool, i) => {
          if (seen.has(tool)) problems.push({ path: `tools.${i}`, reason: `tool '${tool}' is listed twice` });
          seen.add(tool);
          if (known.includes(tool)) return;
          const near = suggest(tool, known);
          problems.push({ path: `tools.${i}`, reason: `unknown tool '${tool.slice(0, 80)}'${near ? ` (did you mean '${near}'?)` : ''}; tools are ${AGENT_TOOLS.join(', ')} and action_<name> of a declared action` });
        });
        const access = [...AGENT_ACCESS_OBJECTS];
        const listed = new Set<string>();
        parsed.data.accessObjects.forEach((object, i) => {
          if (listed.has(object)) problems.push({ path: `accessObjects.${i}`, reason: `object '${object}' is listed twice` });
          listed.add(object);
          if (access.includes(object)) return;
          const near = suggest(object, access);
          problems.push({ path: `accessObjects.${i}`, reason: `'${object.slice(0, 80)}' is not an access object${near ? ` (did you mean '${near}'?)` : ''}; access objects are ${access.join(', ')}` });
        });
        if (parsed.data.accessObjects.length > 0 && !parsed.data.tools.some((tool) => AGENT_WRITE_TOOLS.includes(tool))) {
          problems.push({ path: 'accessObjects', reason: `lists objects for write tools the agent does not have: add ${AGENT_WRITE_TOOLS.join(', ')} to tools, or remove accessObjects` });
        }
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
      if (!parsed.success || problems.length > 0) continue;
      const a = parsed.data;
      loaded.push({
        name: a.name,
        label: a.label ?? humanize(a.name),
        ...(a.description !== undefined ? { description: a.description } : {}),
        model: a.model ?? null,
        permission: a.permission ?? null,
        instructions: a.instructions,
        tools: a.tools,
        accessObjects: a.accessObjects,
        source: file,
        app,
      });
    }
    agents.set(app, loaded);
  }
  return { agents, errors };
}
