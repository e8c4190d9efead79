import type { ChatMessage, ProviderClient, ToolCall, ToolSpec, Usage } from './providerClient.ts';

export interface AgentRun {
  client: ProviderClient;
  model: string;
  /** System prompt, then the stored history and the new user message. */
  messages: ChatMessage[];
  tools: ToolSpec[];
  maxSteps: number;
  signal?: AbortSignal;
  /** Runs one tool call; its answer goes back to the model as JSON. */
  execute(call: ToolCall): Promise<unknown>;
  /** Each piece of the model's text, as it arrives. */
  onDelta?(content: string): void;
  /** Each tool call once it ran, with what it answered the model. */
  onTool?(call: ToolCall, result: unknown): void;
}

export interface AgentResult {
  /** The assistant and tool messages of this turn, in order. */
  messages: ChatMessage[];
  usage: Usage;
  /** true when the step limit ended the turn while the model still called tools. */
  stepLimitReached: boolean;
}

/**
 * The agent loop: ask the model (streamed, tool calls assembled from their deltas); when it calls
 * tools, run them and feed the results back; stop at an answer without tool calls or at maxSteps.
 */
export async function runAgentLoop(run: AgentRun): Promise<AgentResult> {
  const added: ChatMessage[] = [];
  const usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  for (let step = 0; step < run.maxSteps; step++) {
    let content = '';
    let calls: ToolCall[] = [];
    for await (const event of run.client.chatStream({ model: run.model, messages: [...run.messages, ...added], tools: run.tools, signal: run.signal })) {
      if (event.type === 'delta') {
        content += event.content;
        run.onDelta?.(event.content);
      }
      else if (event.type === 'toolCalls') calls = event.calls;
      else {
        usage.promptTokens += event.usage.promptTokens;
        usage.completionTokens += event.usage.completionTokens;
        usage.totalTokens += event.usage.totalTokens;
      }
    }
    added.push({ role: 'assistant', content: content === '' && calls.length > 0 ? null : content, ...(calls.length > 0 ? { toolCalls: calls } : {}) });
    if (calls.length === 0) return { messages: added, usage, stepLimitReached: false };
    for (const call of calls) {
      const result = await run.execute(call);
      run.onTool?.(call, result);
      added.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(result) });
    }
  }
  return { messages: added, usage, stepLimitReached: true };
}
