import t from 'tap';
import { resolveObject } from '../../metadata/resolveObject.ts';
import { checkPolicy, compilePolicy, FALSE_CONDITION, TRUE_CONDITION } from '../../plugins/data/access/compilePolicy.ts';
import { checkAssignmentChange, checkDelegation } from '../../plugins/data/access/delegation.ts';
import { effectiveGrants, type AccessModel, type Grants } from '../../plugins/data/access/effectiveGrants.ts';
import { fieldAccess } from '../../plugins/data/access/fieldAccess.ts';
import { objectPermissions } from '../../plugins/data/access/objectPermissions.ts';
import { isActive } from '../../plugins/data/access/validityWindow.ts';
import { resolvedObject } from '../harness/fixtures.ts';

const now = new Date('2026-06-15T12:00:00Z');

t.test('validity windows fail closed', async (t) => {
  const cases: Array<[string, object, boolean]> = [
    ['open both ends', {}, true],
    ['inside', { valid_from: '2026-06-01T00:00:00Z', valid_until: '2026-07-01T00:00:00Z' }, true],
    ['ended', { valid_until: '2026-06-15T11:59:59Z' }, false],
    ['ends exactly now', { valid_until: '2026-06-15T12:00:00Z' }, false],
    ['not started', { valid_from: '2026-06-16T00:00:00Z' }, false],
    ['unparsable start', { valid_from: 'next tuesday' }, false],
    ['unparsable end', { valid_until: 'soon' }, false],
    ['not a string', { valid_until: 12 }, false],
  ];
  for (const [name, row, expected] of cases) t.equal(isActive(row, now), expected, name);
});

const model: AccessModel = {
  positions: [
    { id: 'p-sales', name: 'sales', parent: null, delegatable: false, admin_scope: false },
    { id: 'p-rep', name: 'rep', parent: 'p-sales', delegatable: true, admin_scope: false },
    { id: 'p-admin', name: 'tenant_admin', parent: null, delegatable: true, admin_scope: true },
  ],
  permissionSets: [
    { id: 's-del', name: 'deleters', objects: JSON.stringify({ doc: { delete: true } }), fields: null, permissions: ['email:send'] },
    { id: 's-ai', name: 'ai', objects: { doc: { viewAll: true } }, fields: { 'doc.secret': { edit: true } }, permissions: ['ai:chat'] },
  ],
  positionSets: [{ position: 'p-rep', permission_set: 's-del' }],
  userPositions: [
    { id: 'up1', user_id: 'u1', position: 'p-rep' },
    { id: 'up2', user_id: 'u2', position: 'p-rep', valid_until: '2026-01-01T00:00:00Z' },
  ],
  userSets: [
    { id: 'us1', user_id: 'u1', permission_set: 's-ai', valid_from: '2026-06-01T00:00:00Z', valid_until: '2026-06-30T00:00:00Z' },
    { id: 'us2', user_id: 'u2', permission_set: 's-ai', valid_from: '2027-01-01T00:00:00Z' },
  ],
};

t.test('effective grants through positions and direct assignments', async (t) => {
  const u1 = effectiveGrants('u1', false, model, now);
  t.same(u1.positions, ['rep']);
  t.same(u1.unitIds.sort(), ['p-rep', 'p-sales'], 'a unit covers its subordinates');
  t.same(u1.permissionSets.sort(), ['ai', 'deleters']);
  t.same(u1.permissions.sort(), ['ai:chat', 'email:send']);
  t.same(u1.fields.get('doc.secret'), { read: true, edit: true }, 'edit implies read');
  t.same(u1.setSources.get('deleters'), ['position:rep']);
  const u2 = effectiveGrants('u2', false, model, now);
  t.same({ positions: u2.positions, sets: u2.permissionSets, keys: u2.permissions }, { positions: [], sets: [], keys: [] }, 'expired and future assignments grant nothing');
});

t.test('object permissions: baseline, sets, admin, system objects', async (t) => {
  const doc = resolvedObject('doc', { title: { type: 'text' } });
  const sys = { ...resolvedObject('sys_thing', { title: { type: 'text' } }), system: true };
  const member = effectiveGrants('u9', false, model, now);
  t.same(objectPermissions(member, doc), { read: true, create: true, edit: true, delete: false, viewAll: false, modifyAll: false }, 'the baseline has no delete');
  t.same(objectPermissions(member, sys), { read: false, create: false, edit: false, delete: false, viewAll: false, modifyAll: false });
  t.equal(objectPermissions(effectiveGrants('u1', false, model, now), doc).delete, true, 'a set adds delete');
  t.equal(objectPermissions(effectiveGrants('u9', true, model, now), sys).delete, true, 'admins hold everything');
});

t.test('row policies compile to conditions, folding the user', async (t) => {
  const doc = resolvedObject('doc', { region: { type: 'text' }, amount: { type: 'number' }, open: { type: 'boolean' } });
  const user = { id: 'u1', positions: ['eu_manager'], organizationId: null };
  const eu = compilePolicy("record.region == 'EU' && 'eu_manager' in user.positions", doc, user);
  t.match(eu, { kind: 'compare', op: 'eq', target: { ref: { name: 'region' } }, operand: { value: 'EU' } }, 'the user part folds away');
  t.same(compilePolicy("record.region == 'EU' || 'eu_manager' in user.positions", doc, user), TRUE_CONDITION, 'a true side of || opens every row');
  t.same(compilePolicy("record.region == 'EU' && 'cfo' in user.positions", doc, user), FALSE_CONDITION, 'a false side of && opens nothing');
  t.same(compilePolicy("'cfo' in user.positions", doc, user), FALSE_CONDITION, 'a constant false opens nothing');
  t.match(compilePolicy('record.owner_id == user.id', doc, user), { kind: 'compare', operand: { value: 'u1' } });
  t.match(compilePolicy('5 < record.amount', doc, user), { kind: 'compare', op: 'gt', operand: { value: 5 } }, 'a flipped comparison');
  t.match(compilePolicy("record.region in ['EU', 'UK']", doc, user), { kind: 'in', values: ['EU', 'UK'] });
  t.match(compilePolicy('!record.open', doc, user), { kind: 'not', item: { kind: 'compare', operand: { value: true } } });
  t.same(compilePolicy('record.region == user.organizationId', doc, user), FALSE_CONDITION, 'an absent user value matches nothing');
  t.throws(() => compilePolicy('record.region.size() > 2', doc, user), /not supported|must compare/);
});

t.test('delegation rules', async (t) => {
  const at = (from: string, until: string, extra: object = {}) => ({ user_id: 'u5', position: 'p-rep', valid_from: from, valid_until: until, reason: 'cover', ...extra });
  const withRows = (...rows: AccessModel['userPositions']) => ({ ...model, userPositions: [...model.userPositions, ...rows] });
  const ok = checkDelegation('u1', model, at('2026-06-15T00:00:00Z', '2026-07-15T00:00:00Z'), now);
  t.equal(ok.delegated_by, 'u1', '30 days exactly is allowed');
  t.throws(() => checkDelegation('u1', model, at('2026-06-15T00:00:00Z', '2026-07-15T00:00:01Z'), now), { code: 'DELEGATION_INVALID' });
  t.throws(() => checkDelegation('u1', withRows({ id: 'x', user_id: 'u1', position: 'p-admin' }), at('2026-06-15T00:00:00Z', '2026-06-16T00:00:00Z', { position: 'p-admin' }), now), { code: 'DELEGATION_NOT_ALLOWED' });
  t.throws(() => checkDelegation('u1', model, at('2026-06-15T00:00:00Z', '2026-06-16T00:00:00Z', { position: 'p-sales' }), now), { code: 'DELEGATION_NOT_ALLOWED' }, 'not delegatable');
  t.throws(() => checkDelegation('u1', model, at('2026-06-15T00:00:00Z', '2026-06-16T00:00:00Z', { reason: ' ' }), now), { code: 'DELEGATION_INVALID' });
  t.throws(() => checkDelegation('u1', model, at('2026-06-16T00:00:00Z', '2026-06-15T00:00:00Z'), now), { code: 'DELEGATION_INVALID' }, 'ends before it starts');
  t.throws(() => checkDelegation('u2', model, at('2026-06-15T00:00:00Z', '2026-06-16T00:00:00Z'), now), { code: 'DELEGATION_NOT_ALLOWED' }, 'an ended assignment delegates nothing');

  const delegated = withRows({ id: 'd1', user_id: 'u7', position: 'p-rep', valid_from: '2026-06-10T00:00:00Z', valid_until: '2026-06-20T00:00:00Z', delegated_by: 'u1' });
  t.throws(() => checkDelegation('u7', delegated, at('2026-06-20T00:00:00Z', '2026-07-10T00:00:00Z', { user_id: 'u7' }), now), { code: 'DELEGATION_NOT_ALLOWED', message: /through a delegation/ }, 'a delegate cannot extend its delegation');
  t.throws(() => checkDelegation('u7', delegated, at('2026-06-15T00:00:00Z', '2026-06-16T00:00:00Z'), now), { code: 'DELEGATION_NOT_ALLOWED' }, 'nor pass it on');

  const bounded = withRows({ id: 'b1', user_id: 'u8', position: 'p-rep', valid_from: '2026-06-01T00:00:00Z', valid_until: '2026-06-25T00:00:00Z' });
  t.equal(checkDelegation('u8', bounded, at('2026-06-15T00:00:00Z', '2026-06-25T00:00:00Z'), now).delegated_by, 'u8', 'up to the end of the own assignment');
  t.throws(() => checkDelegation('u8', bounded, at('2026-06-15T00:00:00Z', '2026-06-25T00:00:01Z'), now), { code: 'DELEGATION_INVALID', details: { errors: [{ path: 'valid_until' }] } }, 'not past it');
  t.throws(() => checkDelegation('u8', bounded, at('2026-05-31T00:00:00Z', '2026-06-16T00:00:00Z'), now), { code: 'DELEGATION_INVALID', details: { errors: [{ path: 'valid_from' }] } }, 'nor before it');
});

t.test('assignment changes by a delegated admin', async (t) => {
  const row = { id: 'd1', user_id: 'u7', position: 'p-rep', valid_from: '2026-06-15T00:00:00Z', valid_until: '2026-06-20T00:00:00Z', reason: 'cover', delegated_by: 'u1' };
  t.doesNotThrow(() => checkAssignmentChange(model, row, { valid_until: '2026-07-01T00:00:00Z' }, now), 'a delegation kept within the rules');
  t.throws(() => checkAssignmentChange(model, row, { valid_until: '2026-08-01T00:00:00Z' }, now), { code: 'DELEGATION_INVALID' }, 'not stretched past 30 days');
  t.throws(() => checkAssignmentChange(model, row, { delegated_by: 'u5' }, now), { code: 'DELEGATION_INVALID' }, 'the delegator does not change');
  t.throws(() => checkAssignmentChange(model, { ...row, delegated_by: null }, { delegated_by: 'u1' }, now), { code: 'DELEGATION_INVALID' }, 'a plain assignment is not made a delegation');
  t.throws(() => checkAssignmentChange(model, { ...row, delegated_by: null }, { position: 'p-admin' }, now), { code: 'DELEGATION_NOT_ALLOWED' }, 'an admin scope is not granted');
  t.throws(() => checkAssignmentChange(model, { ...row, delegated_by: null, position: 'p-admin' }, { user_id: 'u5' }, now), { code: 'DELEGATION_NOT_ALLOWED' }, 'nor moved');
  t.doesNotThrow(() => checkAssignmentChange(model, { ...row, delegated_by: null, valid_until: null }, { user_id: 'u5' }, now), 'a plain assignment changes freely');
});

t.test('row policies are checked when metadata loads', async (t) => {
  const definition = (condition: string) => ({ name: 'doc', fields: { region: { type: 'text' as const } }, policies: [{ name: 'p', condition, access: 'read' as const }] });
  const good = resolveObject({ definition: definition("record.region == 'EU'"), source: 'doc.json', app: 'test' });
  t.same(good.object?.policies, [{ name: 'p', condition: "record.region == 'EU'", access: 'read' }]);
  const typo = resolveObject({ definition: definition("record.regoin == 'EU'"), source: 'doc.json', app: 'test' });
  t.equal(typo.object, null);
  t.match(typo.errors[0]!.details, { file: 'doc.json', path: 'policies[0].condition' }, 'a type error names the policy');
  const unsupported = checkPolicy('record.region.size() > 2', good.object!);
  t.match(unsupported, /not supported|must compare/, 'outside the compilable subset: the boot fails with the reason');
  t.equal(checkPolicy("record.region == 'EU'", good.object!), null);
});

t.test('a formula is readable only where every field it reads is', async (t) => {
  const grants = (isAdmin: boolean, fields: Array<[string, { read: boolean; edit: boolean }]>) => ({ isAdmin, fields: new Map(fields) }) as unknown as Grants;
  const controlled = new Set(['deal.cost']);
  const reads = (object: string, field: string) => (object === 'deal' && field === 'margin' ? ['amount', 'cost'] : object === 'deal' && field === 'label' ? ['title'] : undefined);
  const member = fieldAccess(grants(false, []), controlled, reads);
  t.notOk(member.canRead('deal', 'margin'), 'reads a controlled field the member may not read');
  t.ok(member.canRead('deal', 'label'), 'reads only open fields');
  t.ok(member.canRead('deal', 'amount'));
  t.same(member.hidden('deal', ['title', 'margin', 'cost', 'label']), ['margin', 'cost']);
  t.notOk(member.canRead('deal', 'margin'), 'the same answer from the memo');
  const granted = fieldAccess(grants(false, [['deal.cost', { read: true, edit: false }]]), controlled, reads);
  t.ok(granted.canRead('deal', 'margin'), 'granted every input: readable');
  t.notOk(granted.canEdit('deal', 'cost'), 'reading is not editing');
  t.ok(fieldAccess(grants(true, []), controlled, reads).canRead('deal', 'margin'), 'admins read everything');
  const ownControl = fieldAccess(grants(false, [['deal.cost', { read: true, edit: false }]]), new Set(['deal.cost', 'deal.margin']), reads);
  t.notOk(ownControl.canRead('deal', 'margin'), 'a formula named in a permission set still needs its own grant');
});
