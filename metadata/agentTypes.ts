/**
 * Agents: AI assistants an app declares in agents/<name>.json, listed by the metadata API and run
 * by the ai plugin in conversations (docs/ai.md).
 */

/** The built-in tools; each declared action adds `action_<name>`. */
export const AGENT_TOOLS = ['query_data', 'validate_expression', 'create_record', 'update_record', 'delete_record'] as const;
export type AgentTool = (typeof AGENT_TOOLS)[number];

/** The built-in tools that propose writes of records. */
export const AGENT_WRITE_TOOLS: readonly string[] = ['create_record', 'update_record', 'delete_record'];

/**
 * The objects of the permission model and of sharing: a write tool proposes a change to them only
 * when the agent lists the object in `accessObjects`.
 */
export { ACCESS_OBJECTS as AGENT_ACCESS_OBJECTS } from '../plugins/data/access/accessObjects.ts';

export interface ResolvedAgent {
  name: string;
  label: string;
  description?: string;
  /** `<provider>/<model>`, or null for plugins.ai.defaultModel. */
  model: string | null;
  /** The permission key a caller must hold to start a conversation with the agent or add to one; null: every holder of ai:chat. */
  permission: string | null;
  /** The system prompt. */
  instructions: string;
  /** Tool names: built-in ones and `action_<name>` of declared actions. */
  tools: string[];
  /** Access objects the write tools may propose changes to (each one of AGENT_ACCESS_OBJECTS). */
  accessObjects: string[];
  source: string;
  app: string;
}
