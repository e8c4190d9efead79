/** The pure cores of actions: the body schema generated from a declaration, and the input check run() applies. */
import t from 'tap';
import type { ResolvedAction } from '../../metadata/actionTypes.ts';
import { actionBodySchema } from '../../plugins/actions/inputSchema.ts';
import { validateActionInput } from '../../plugins/actions/validateActionInput.ts';

const action = (over: Partial<ResolvedAction> = {}): ResolvedAction => ({
  name: 'tag_lead', label: 'Tag lead', object: 'lead', permission: null,
  input: {
    tags: { type: 'multiselect', options: ['hot', 'cold'], required: true },
    owner: { type: 'lookup', reference: 'user' },
    size: { type: 'integer', min: 1, max: 10 },
  },
  run: { type: 'handler' }, assignments: [], source: 'x', app: 'crm',
  ...over,
});

t.test('the body schema: inputs, recordId on record actions, nothing else', async (t) => {
  const schema = actionBodySchema(action()) as { properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: boolean };
  t.same(Object.keys(schema.properties), ['recordId', 'tags', 'owner', 'size']);
  t.same(schema.required, ['recordId', 'tags']);
  t.equal(schema.additionalProperties, false);
  t.same(schema.properties.tags, { type: 'array', items: { type: 'string', enum: ['hot', 'cold'] }, uniqueItems: true, maxItems: 2 });
  t.same([schema.properties.size!.minimum, schema.properties.size!.maximum], [1, 10]);
  const free = actionBodySchema(action({ object: null, input: {} })) as { properties: object; required?: string[] };
  t.same([free.properties, free.required], [{}, undefined]);
});

t.test('validateActionInput: one problem per field, recordId only on record actions', async (t) => {
  t.same(validateActionInput(action(), []), { ok: false, problems: [{ path: 'body', message: 'must be object' }] });
  t.same(validateActionInput(action(), null), { ok: false, problems: [{ path: 'body', message: 'must be object' }] });
  const bad = validateActionInput(action(), { tags: ['hot', 'hot'], size: 1.5, owner: 7, __extra: 1 });
  t.same(bad.ok ? [] : bad.problems.map((p) => p.path).sort(), ['body/__extra', 'body/owner', 'body/recordId', 'body/size', 'body/tags']);
  const good = validateActionInput(action(), { recordId: 'r1', tags: ['cold'], size: 10 });
  t.same(good, { ok: true, input: { tags: ['cold'], size: 10 }, recordId: 'r1' });
  const free = validateActionInput(action({ object: null }), { recordId: 'r1', tags: ['hot'] });
  t.same(free.ok ? [] : free.problems, [{ path: 'body/recordId', message: 'must NOT have additional properties' }]);
  const long = validateActionInput(action(), { recordId: 'x'.repeat(201), tags: ['hot'] });
  t.same(long.ok ? [] : long.problems.map((p) => p.path), ['body/recordId']);
  const inherited = validateActionInput(action({ object: null }), { constructor: 1, tags: ['hot'] });
  t.same(inherited.ok ? [] : inherited.problems.map((p) => p.path), ['body/constructor'], 'keys of Object.prototype are unknown keys too');
});
