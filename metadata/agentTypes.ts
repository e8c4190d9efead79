/**
 * Agents: AI assistants an app declares in agents/<name>.json, listed by the metadata API and run
 * by the ai plugin in conversations (docs/ai.md).
 */

/** The built-in tools; each declared action adds `action_<name>`. */
export const AGENT_TOOLS = ['query_data', 'validate_expression', 'create_record', 'update_record', 'delete_record'] as const;
export type AgentTool = (typeof AGENT_TOOLS)[number];

export interface ResolvedAgent {
  name: string;
  label: string;
  description?: string;
  /** `<provider>/<model>`, or null for plugins.ai.defaultModel. */
  model: string | null;
  /** The system prompt. */
  instructions: string;
  /** Tool names: built-in ones and `action_<name>` of declared actions. */
  tools: string[];
  source: string;
  app: string;
}
