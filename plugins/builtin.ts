import type { BuiltinPlugin } from '../runtime/resolvePlugins.ts';
import { isPhoneNumberOn } from './auth/phoneNumberOptions.ts';
import actions from './actions/index.ts';
import ai from './ai/index.ts';
import auth from './auth/index.ts';
import authRoutes from './auth/routes/index.ts';
import crm from './crm/index.ts';
import data from './data/index.ts';
import dataIndexSweep from './data/sweep/index.ts';
import email from './email/index.ts';
import events from './events/index.ts';
import emailRoutes from './email/routes/index.ts';
import http from './http/index.ts';
import io from './io/index.ts';
import jobs from './jobs/index.ts';
import lifecycle from './lifecycle/index.ts';
import meta from './meta/index.ts';
import notifications from './notifications/index.ts';
import flows from './flows/index.ts';
import automation from './automation/index.ts';
import metaApi from './meta/api/index.ts';
import openapi from './openapi/index.ts';
import rest from './rest/index.ts';
import realtime from './realtime/index.ts';
import search from './search/index.ts';
import sharing from './sharing/index.ts';
import sms from './sms/index.ts';
import orgScoping from './org-scoping/index.ts';
import forms from './forms/index.ts';
import approvals from './approvals/index.ts';
import reports from './reports/index.ts';
import comments from './comments/index.ts';
import files from './files/index.ts';
import activities from './activities/index.ts';
import mcp from './mcp/index.ts';
import audit from './audit/index.ts';
import settings from './settings/index.ts';
import settingsRoutes from './settings/routes/index.ts';
import consolePlugin from './console/index.ts';
import shareLinks from './share-links/index.ts';
import devOutbox from './dev-outbox/index.ts';
import devOutboxRoutes from './dev-outbox/routes.ts';

/** Plugins that need the job queue are off by default when the jobs plugin is turned off. */
const jobsOn = (config: { plugins: Record<string, unknown> }) => (config.plugins.jobs as { enabled?: boolean } | undefined)?.enabled !== false;
/** Plugins that read as a user (share links) are off by default when the auth plugin is turned off. */
const authOn = (config: { plugins: Record<string, unknown> }) => (config.plugins.auth as { enabled?: boolean } | undefined)?.enabled !== false;

/** First-party plugins, in their default order (the kernel reorders by requires -> provides). */
export const BUILTIN_PLUGINS: readonly BuiltinPlugin[] = [
  { manifest: http, enabledByDefault: true, optionsFrom: (config) => ({ ...config.server }) },
  { manifest: events, enabledByDefault: true },
  {
    manifest: auth,
    enabledByDefault: true,
    optionsFrom: (config) => ({
      trustedOrigins: config.auth.trustedOrigins,
      ...(config.auth.admin ? { admin: config.auth.admin } : {}),
      ...(config.auth.plugins?.phoneNumber !== undefined ? { phoneNumber: config.auth.plugins.phoneNumber } : {}),
    }),
  },
  // On when config has an `sms` section or phone sign-in is on; outside production it only logs by default.
  {
    manifest: sms,
    enabledByDefault: (config) => config.sms !== undefined || isPhoneNumberOn(config.auth.plugins?.phoneNumber)
      || isPhoneNumberOn((config.plugins.auth as { phoneNumber?: Parameters<typeof isPhoneNumberOn>[0] } | undefined)?.phoneNumber),
    optionsFrom: (config) => ({ ...config.sms }),
  },
  { manifest: authRoutes, enabledByDefault: true },
  // Outside production: what the email and SMS log providers did not deliver, at GET /api/v1/dev/outbox.
  { manifest: devOutbox, enabledByDefault: true },
  { manifest: devOutboxRoutes, enabledByDefault: true },
  // Outside production mail is only logged by default; production needs SMTP or enabled: false.
  // Per-environment settings (docs/settings.md): the store before mail, SMS, sign-in and AI read it.
  { manifest: settings, enabledByDefault: true },
  { manifest: settingsRoutes, enabledByDefault: true },
  { manifest: email, enabledByDefault: true },
  { manifest: emailRoutes, enabledByDefault: true },
  { manifest: meta, enabledByDefault: true },
  { manifest: metaApi, enabledByDefault: true },
  { manifest: openapi, enabledByDefault: true },
  { manifest: data, enabledByDefault: true },
  // The audit trail (sys_audit_event): sign-ins, keys, users, access changes, exports, share links.
  { manifest: audit, enabledByDefault: true },
  { manifest: rest, enabledByDefault: true },
  { manifest: io, enabledByDefault: true },
  { manifest: search, enabledByDefault: true },
  { manifest: realtime, enabledByDefault: true },
  { manifest: jobs, enabledByDefault: true },
  // The hourly job dropping unused automatic indexes (plugins.data.autoIndex); without jobs, at start only.
  { manifest: dataIndexSweep, enabledByDefault: true },
  // Applies the declared retention contracts daily; OS_LIFECYCLE_DISABLED=1 turns it off.
  { manifest: lifecycle, enabledByDefault: true, optionsFrom: (config) => ({ retentionOverrides: config.lifecycle.retention_overrides }) },
  { manifest: sharing, enabledByDefault: true },
  // Anonymous read-only links to one record (/data/:object/:id/share-links, /share-links/:token).
  // Off by default without the auth plugin: a link is read as its creator, whom auth resolves.
  { manifest: shareLinks, enabledByDefault: authOn },
  { manifest: actions, enabledByDefault: true },
  { manifest: notifications, enabledByDefault: true },
  // Public forms declared by apps (forms/<slug>.json) at /api/v1/forms and /f/<slug>.
  { manifest: forms, enabledByDefault: true },
  // Runs on the job queue: off by default when the jobs plugin is turned off.
  { manifest: flows, enabledByDefault: jobsOn },
  // Signed inbound hooks of api flows and the daily sweep of time-relative flows (need flows).
  { manifest: automation, enabledByDefault: jobsOn },
  // Escalations and schedules run on the job queue: off by default when the jobs plugin is off.
  { manifest: approvals, enabledByDefault: jobsOn },
  { manifest: reports, enabledByDefault: jobsOn },
  // Chat, agents and the approval queue; providers from plugins.ai.providers or OPENAI_API_KEY.
  { manifest: ai, enabledByDefault: true },
  // Opt-in: splits objects with an organization_id field by the session's organization.
  { manifest: orgScoping, enabledByDefault: false },
  // Opt-in: the logic of the CRM template app (runtime.config.ts enables it with the app).
  { manifest: crm, enabledByDefault: false },
  { manifest: comments, enabledByDefault: true },
  { manifest: files, enabledByDefault: true },
  { manifest: activities, enabledByDefault: true },
  // Opt-in (OS_MCP_SERVER_ENABLED=true or plugins.mcp.enabled): the MCP server at /api/v1/mcp; its public origin defaults to auth's baseURL.
  { manifest: mcp, enabledByDefault: false, optionsFrom: (config) => mcpOriginFrom(config.plugins.auth?.baseURL) },
  // The web console at /console/: on by default outside production.
  { manifest: consolePlugin, enabledByDefault: (config) => !config.production },
];

function mcpOriginFrom(baseURL: unknown): Record<string, unknown> {
  if (typeof baseURL !== 'string') return {};
  try {
    return { publicOrigin: new URL(baseURL).origin };
  } catch {
    return {};
  }
}
