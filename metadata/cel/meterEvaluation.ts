import { everyNode, operands, type CelNode, type Evaluate } from './celAst.ts';
import { CEL_LIMITS, stepsExceeded, timeExceeded, type CelCostError } from './celLimits.ts';
import { matchPattern } from './matchPattern.ts';

interface Meter {
  steps: number;
  /** Steps since the clock was last read. */
  unclocked: number;
  deadline: number;
  exceeded: CelCostError | null;
}

/** How often (in steps) an evaluation reads the clock: rarely enough to cost nothing, often enough to stop near the deadline. */
const CLOCK_EVERY = 128;

/** The meter of the evaluation running now; evaluation is synchronous, so there is one at a time. */
let current: Meter | null = null;

function tick(steps: number): void {
  const meter = current;
  if (!meter) return;
  if (meter.exceeded) throw meter.exceeded;
  meter.steps += steps;
  meter.unclocked += steps;
  if (meter.steps > CEL_LIMITS.maxSteps) throw (meter.exceeded = stepsExceeded());
  if (meter.unclocked >= CLOCK_EVERY) {
    meter.unclocked = 0;
    if (performance.now() > meter.deadline) throw (meter.exceeded = timeExceeded());
  }
}

/** Steps for a value an expression built: a list per element, a string per 64 characters. */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length >> 6;
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  if (value instanceof Uint8Array) return value.length >> 6;
  return 0;
}

/** Steps for an error raised inside an expression (building it costs more than a node): `||`, `all` and `exists` may catch it and go on. */
const ERROR_STEPS = 100;

function raised(error: unknown): never {
  if (current && !current.exceeded) tick(ERROR_STEPS);
  throw error;
}

/** Nodes whose result is a value they build (not one they read): its size is counted. */
const BUILDS = new Set(['+', 'call', 'rcall', 'list', 'comprehension']);
/** Nodes that read their operands whole (a function scans its text, `in` its list): the operands' sizes are counted. */
const CONSUMES = new Set(['call', 'rcall', 'in', '==', '!=', '<', '<=', '>', '>=']);

/**
 * `text.matches(pattern)` on RE2 (linear time in the text) instead of the library's JavaScript
 * RegExp (backtracking). A receiver or pattern that is not a string (a `dyn` value) goes to the
 * library's own overload resolution, which reports the type error.
 */
function matchesOnRe2(node: CelNode): Evaluate | null {
  if (node.op !== 'rcall') return null;
  const [name, receiver, args] = node.args as [string, CelNode, CelNode[]];
  if (name !== 'matches' || args.length !== 1) return null;
  const pattern = args[0]!;
  const library = node.meta.evaluate;
  return (ev, self, ctx) => {
    const text = receiver.evaluate(ev, receiver, ctx);
    const source = pattern.evaluate(ev, pattern, ctx);
    if (typeof text !== 'string' || typeof source !== 'string') return library(ev, self, ctx);
    tick(text.length >> 2);
    return matchPattern(text, source);
  };
}

/**
 * Makes every node of a checked expression count its evaluation against the running meter, and
 * `matches()` run on RE2. Done once per compiled expression, before its first evaluation.
 */
export function instrument(root: CelNode): void {
  const nodes = everyNode(root);
  const consumed = new Set<CelNode>();
  for (const node of nodes) if (CONSUMES.has(node.op) && !node.meta.alternate && !node.meta.macro) for (const operand of operands(node)) consumed.add(operand);
  for (const node of nodes) {
    const { alternate, macro } = node.meta;
    let inner: Evaluate;
    if (alternate) inner = (ev, _self, ctx) => alternate.evaluate(ev, alternate, ctx);
    else if (macro) inner = (ev, _self, ctx) => macro.evaluate(ev, macro, ctx);
    else inner = matchesOnRe2(node) ?? ((ev, self, ctx) => node.meta.evaluate(ev, self, ctx));
    const base = node.op === 'map' ? 1 + (node.args as unknown[]).length : 1;
    const sized = (BUILDS.has(node.op) && !alternate) || consumed.has(node);
    node.evaluate = (ev, self, ctx) => {
      tick(base);
      let value: unknown;
      try {
        value = inner(ev, self, ctx);
      } catch (error) {
        raised(error);
      }
      if (sized) tick(sizeOf(value));
      return value;
    };
  }
}

/**
 * Runs one evaluation under a meter: past CEL_LIMITS.maxSteps steps or CEL_LIMITS.timeoutMs it
 * stops with a CelCostError. Once over, every further node raises it again, so the evaluation ends
 * with it even where the library catches errors (`||`, `all`, `exists` absorb errors of their
 * operands). Evaluations started inside one (under an outer `metered`) share its meter: the bound
 * is for the whole.
 */
export function metered<T>(evaluate: () => T): T {
  if (current) return evaluate();
  current = { steps: 0, unclocked: 0, deadline: performance.now() + CEL_LIMITS.timeoutMs, exceeded: null };
  try {
    return evaluate();
  } finally {
    current = null;
  }
}
