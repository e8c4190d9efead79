import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { registerAccessHooks } from './accessHooks.ts';
import { AUDIT_EVENT, createAuditService } from './createAuditService.ts';

/**
 * The audit trail: `sys_audit_event`, engine-owned, read by admins only. Provides `audit.record`
 * (plugins record sign-ins, keys, users, overlays, decisions, exports and share links through it)
 * and records every change of the access objects itself. Kept hot 90 days (`audit.log`), then archived.
 */
export default definePlugin({
  name: 'audit',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'metadata.registry'],
  provides: ['audit.record'],
  register(ctx) {
    ctx.resolve('metadata.registry').contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    const audit = createAuditService(ctx.resolve('data.engine'), ctx.log);
    ctx.provide('audit.record', audit);
    ctx.retention({
      name: 'audit.log', object: AUDIT_EVENT, keepDays: 90, action: 'archive', ageField: 'occurred_at',
      description: 'Audit trail (sys_audit_event): kept hot 90 days, then archived.',
    });
    registerAccessHooks((name, handler, options) => ctx.hook(name, handler, options), audit);
  },
});
