/** One server-sent event: its name and its data parsed as JSON (null when it is not JSON). */
export interface SseEvent {
  event: string;
  data: unknown;
}

/**
 * Reads a `text/event-stream` body piece by piece, as the network hands it over: `push` answers
 * the events completed by a piece (an event may be split across pieces), `end` those left when the
 * body ends. Comments and fields other than `event` and `data` are skipped.
 */
export function sseEvents() {
  let buffer = '';
  const parse = (block: string): SseEvent | null => {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return null;
    try {
      return { event, data: JSON.parse(data.join('\n')) };
    } catch {
      return { event, data: null };
    }
  };
  const drain = (final: boolean): SseEvent[] => {
    const out: SseEvent[] = [];
    // Lines end in LF or CRLF (the CR is dropped, even when a piece ends between the two).
    const blocks = buffer.replace(/\r/g, '').split('\n\n');
    buffer = final ? '' : blocks.pop() ?? '';
    for (const block of blocks) {
      const parsed = block.trim() === '' ? null : parse(block);
      if (parsed) out.push(parsed);
    }
    return out;
  };
  return {
    push(text: string): SseEvent[] {
      buffer += text;
      return drain(false);
    },
    end(): SseEvent[] {
      return drain(true);
    },
  };
}
