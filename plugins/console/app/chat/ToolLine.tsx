import { views } from '../catalog.ts';
import { aiQueue } from '../inbox.ts';
import { href } from '../route.ts';
import { toolText, type ObjectLabels, type ToolSummary } from './chatModel.ts';

/** An object's labels from the views the user may use (the object's name when it may use none). */
export const objectLabels: ObjectLabels = (object) => {
  const view = (views.value ?? []).find((v) => v.object === object && v.default);
  return { label: view?.objectLabel ?? object, plural: view?.pluralLabel ?? object };
};

/**
 * A tool call in the conversation: what it queried and how many rows the model received, or what
 * it proposed, linked to its pending action for those who may read the queue (`ai:read`).
 */
export function ToolLine({ tool }: { tool: ToolSummary }) {
  return (
    <li class={`tool-call${tool.error ? ' refused' : ''}`} data-tool={tool.name} data-object={tool.object ?? undefined} data-pending={tool.pendingActionId}>
      <span class="speaker">Tool</span>
      <span class="tool-text">{toolText(tool, objectLabels)}</span>
      {tool.pendingActionId
        ? aiQueue.value
          ? <> <a class="pending-link" href={href(`/ai-actions/${encodeURIComponent(tool.pendingActionId)}`)}>Open the pending action</a></>
          : <span class="muted"> (waits for a holder of ai:approve)</span>
        : null}
    </li>
  );
}
