/**
 * The guard list of `npm run audit:guards` (test/guards/runGuards.ts): each security guard the docs
 * promise, as one one-line mutation that weakens it and the test files that must catch it. The
 * original text must be found exactly once in its file; when the code moves, update the entry here
 * as part of the change (the audit fails naming it otherwise). A new guard gets an entry and a test
 * that kills it. Keep each selection small: the whole audit must stay under 45 minutes.
 */
export interface Guard {
  /** Unique, `area.what`. */
  id: string;
  /** One of the areas of docs/access.md's "How the guards are tested". */
  area: string;
  /** Repository-relative path of the file changed. */
  file: string;
  /** The exact text (one line or part of one) found once in the file. */
  original: string;
  /** What it becomes: the guard weakened. */
  mutation: string;
  /**
   * Test files that must fail with the mutation (and pass without it). They run in this order and
   * stop at the first failure: the fastest (pure cores) first.
   */
  tests: string[];
  /** What the mutation means, in words. */
  what: string;
}

export const GUARDS: Guard[] = [
  // row security
  {
    id: "rows.viewAllIsNotModifyAll", area: "row security", file: "plugins/data/access/rowScope.ts",
    original: "if (op === 'read' ? perms.viewAll : perms.modifyAll) return null;",
    mutation: "if (perms.viewAll || perms.modifyAll) return null;",
    tests: ["test/access/guardCores.test.ts", "test/access/pinnedGuards.test.ts"],
    what: "a view-all permission also opens every row for edit and delete",
  },
  {
    id: "rows.readScopeOnWrite", area: "row security", file: "plugins/data/access/enforceAccess.ts",
    original: "if (!(await inScope(trx, object, id, profile, 'read'))) {",
    mutation: "if (false) {",
    tests: ["test/access/guards.test.ts"],
    what: "an update or delete outside the read scope answers 403 instead of 404 (an existence oracle)",
  },
  {
    id: "rows.editScopeOnWrite", area: "row security", file: "plugins/data/access/enforceAccess.ts",
    original: "if (!(await inScope(trx, object, id, profile, 'edit'))) throw denied(",
    mutation: "if (false) throw denied(",
    tests: ["test/access/guards.test.ts"],
    what: "a visible record outside the edit scope is written",
  },
  {
    id: "rows.readScopeInQueries", area: "row security", file: "plugins/data/access/enforceAccess.ts",
    original: "return (object) => profile.scope(object, 'read');",
    mutation: "return () => null;",
    tests: ["test/access/securityMatrix.test.ts"],
    what: "queries are not limited to the read scope",
  },
  {
    id: "rows.ownerIsServerSet", area: "row security", file: "plugins/data/engine/coerceInput.ts",
    original: "if (system && key === 'owner_id' && object.owner) values[key] = value;",
    mutation: "if (key === 'owner_id' && object.owner) values[key] = value;",
    tests: ["test/rest/badInput.test.ts"],
    what: "a caller sets owner_id (gives a record to someone else)",
  },
  {
    id: "rows.grantWindows", area: "row security", file: "plugins/data/access/effectiveGrants.ts",
    original: "r.user_id === userId && isActive(r, now) && positionsById.has(r.position)",
    mutation: "r.user_id === userId && positionsById.has(r.position)",
    tests: ["test/access/pureCores.test.ts", "test/access/guards.test.ts"],
    what: "position assignments and delegations outside their window grant",
  },
  {
    id: "rows.permissionSetWindows", area: "row security", file: "plugins/data/access/effectiveGrants.ts",
    original: "if (row.user_id === userId && isActive(row, now)) addSet(",
    mutation: "if (row.user_id === userId) addSet(",
    tests: ["test/access/pureCores.test.ts", "test/access/securityMatrix.test.ts"],
    what: "a permission set assignment outside its window grants",
  },
  {
    id: "rows.contributedScopeOnWrite", area: "row security", file: "plugins/data/engine/writeRecords.ts",
    original: "if (!(await rowInScope(trx, object, id, deps.scopeFilter?.(ctx)))) {",
    mutation: "if (false) {",
    tests: ["test/access/orgScoping.test.ts"],
    what: "an update or delete outside a contributed scope (another organization's record) goes through",
  },

  // field security
  {
    id: "fields.editOnWrite", area: "field security", file: "plugins/data/access/enforceAccess.ts",
    original: "if (!profile.fields.canEdit(object.name, field)) throw denied(",
    mutation: "if (false) throw denied(",
    tests: ["test/access/guards.test.ts"],
    what: "a field one may not edit is written",
  },
  {
    id: "fields.readStripped", area: "field security", file: "plugins/data/access/enforceAccess.ts",
    original: "if (hidden.length === 0) return;",
    mutation: "return;",
    tests: ["test/access/securityMatrix.test.ts"],
    what: "unreadable fields are answered",
  },
  {
    id: "fields.namedInQuery", area: "field security", file: "plugins/data/access/enforceAccess.ts",
    original: "if (!profile.fields.canRead(object, field)) throw denied(principal, `${object}.${field}:read`",
    mutation: "if (false) throw denied(principal, `${object}.${field}:read`",
    tests: ["test/access/securityMatrix.test.ts"],
    what: "an unreadable field may be named in where, orderBy, select (a filter oracle)",
  },
  {
    id: "fields.formulaReads", area: "field security", file: "plugins/data/access/fieldAccess.ts",
    original: "if (!reads) return true;",
    mutation: "return true;",
    tests: ["test/access/pureCores.test.ts", "test/access/securityMatrix.test.ts"],
    what: "a formula over a hidden field is readable",
  },
  {
    id: "fields.createManyUncachedProfile", area: "field security", file: "plugins/data/engine/createRecords.ts",
    original: "const guarded = accessKnown(deps, ctx) !== null;",
    mutation: "const guarded = Boolean(accessKnown(deps, ctx));",
    tests: ["test/access/pinnedGuards.test.ts"],
    what: "import and createMany skip the object and field checks while the caller's access profile is not cached",
  },

  // system objects
  {
    id: "system.engineOwnedReadOnly", area: "system objects", file: "plugins/data/engine/writeRecords.ts",
    original: "if (object.system && !ctx.system && object.userActions?.[action] !== true) throw",
    mutation: "if (false) throw",
    tests: ["test/access/guards.test.ts"],
    what: "engine-owned objects (shares, sharing rules) are writable through /data",
  },
  {
    id: "system.adminOnlyObjects", area: "system objects", file: "plugins/data/access/objectPermissions.ts",
    original: "if (ADMIN_ONLY_OBJECTS.has(object.name)) return { ...NONE };",
    mutation: "if (false) return { ...NONE };",
    tests: ["test/rest/historyExposure.test.ts"],
    what: "a permission set opens record history to a member",
  },
  {
    id: "system.ownerPrivate", area: "system objects", file: "plugins/data/access/ownerPrivate.ts",
    original: "if (!OWNER_PRIVATE_OBJECTS.has(object.name)) return null;",
    mutation: "return null;",
    tests: ["test/notifications/notifications.test.ts"],
    what: "notifications (and AI conversations) of others are readable",
  },
  {
    id: "system.linkObjectsDelegatedAdmins", area: "system objects", file: "plugins/data/access/objectPermissions.ts",
    original: "if (grants.adminScope && LINK_OBJECTS.has(object.name)) Object.assign(perms, ALL);",
    mutation: "if (LINK_OBJECTS.has(object.name)) Object.assign(perms, ALL);",
    tests: ["test/access/securityMatrix.test.ts"],
    what: "every member manages positions and permission set assignments",
  },

  // versions
  {
    id: "versions.update", area: "versions", file: "plugins/data/engine/writeRecords.ts",
    original: "runWrite(trx, trx(object.name).where({ id, version }).update(row))",
    mutation: "runWrite(trx, trx(object.name).where({ id }).update(row))",
    tests: ["test/access/guards.test.ts"],
    what: "an update whose record changed after it was read goes through (lost update)",
  },
  {
    id: "versions.delete", area: "versions", file: "plugins/data/engine/writeRecords.ts",
    original: ": trx(object.name).where({ id, version }).delete());",
    mutation: ": trx(object.name).where({ id }).delete());",
    tests: ["test/access/guards.test.ts"],
    what: "a stale delete goes through",
  },
  {
    id: "versions.deleteIntoTrash", area: "versions", file: "plugins/data/engine/writeRecords.ts",
    original: "? trx(object.name).where({ id, version }).whereNull(DELETED_AT)",
    mutation: "? trx(object.name).where({ id }).whereNull(DELETED_AT)",
    tests: ["test/access/pinnedGuards.test.ts"],
    what: "a stale delete into the trash goes through",
  },
  {
    id: "versions.expectedVersion", area: "versions", file: "plugins/data/engine/writeRecords.ts",
    original: "if (options.expectedVersion !== undefined && options.expectedVersion !== current) {",
    mutation: "if (false) {",
    tests: ["test/rest/concurrency.test.ts"],
    what: "If-Match / expectedVersion is ignored",
  },

  // environments
  {
    id: "environments.listedOnlyWithValidSession", area: "environments", file: "plugins/auth/createIdentityService.ts",
    original: "if (!value || value.length > MAX_CREDENTIAL_LENGTH) return null;",
    mutation: "if (!value || value.length > MAX_CREDENTIAL_LENGTH) return null; else return { environmentId: env.id, user: { id: '', email: null } };",
    tests: ["test/auth/signInDiscovery.test.ts"],
    what: "GET /auth/environments names an environment for a cookie that is no valid session of it (forged, made up or signed out), revealing the environment",
  },
  // bans
  {
    id: "bans.temporary", area: "bans", file: "plugins/auth/userView.ts",
    original: "return !user.banExpires || new Date(user.banExpires).getTime() > now;",
    mutation: "return !user.banExpires;",
    tests: ["test/access/guardCores.test.ts", "test/access/pinnedGuards.test.ts"],
    what: "a ban with an expiry (banExpiresIn) never counts as a ban",
  },
  {
    id: "bans.apiKey", area: "bans", file: "plugins/auth/createAuthenticator.ts",
    original: "if (!owner || isBanned(owner)) return null;",
    mutation: "if (!owner) return null;",
    tests: ["test/access/guards.test.ts"],
    what: "a banned member's API key is accepted",
  },
  {
    id: "bans.cachedCredential", area: "bans", file: "plugins/auth/createIdentityService.ts",
    original: "if (mutating) cache.clear(env.id);",
    mutation: "if (false) cache.clear(env.id);",
    tests: ["test/access/guards.test.ts"],
    what: "an API key used before the ban stays accepted from the cache",
  },

  // sharing rules
  {
    id: "sharing.readShareIsNotEdit", area: "sharing rules", file: "plugins/data/access/rowScope.ts",
    original: "const grantsOp = (access: Operation, op: Operation) => op === 'read' || access === 'edit';",
    mutation: "const grantsOp = (access: Operation, op: Operation) => true;",
    tests: ["test/access/guardCores.test.ts", "test/access/guards.test.ts"],
    what: "a read share or rule opens the record for edit",
  },
  {
    id: "sharing.ownerRuleCurrentHolders", area: "sharing rules", file: "plugins/data/access/accessService.ts",
    original: "if (!isActive(row, now)) continue;",
    mutation: "if (false) continue;",
    tests: ["test/access/guards.test.ts"],
    what: "an owner-based rule opens the records of past and future holders",
  },
  {
    id: "sharing.whoMayShare", area: "sharing rules", file: "plugins/sharing/recordShareRoutes.ts",
    original: "const mayShare = principal.isAdmin || (resolved.owner && record.owner_id === principal.userId) || (await grants.objectAccess(principal, object)).modifyAll;",
    mutation: "const mayShare = true;",
    tests: ["test/access/delegationAndSharing.test.ts"],
    what: "anyone who reads a record shares it",
  },
  {
    id: "sharing.rulesAdminOnly", area: "sharing rules", file: "plugins/sharing/sharingContext.ts",
    original: "if (!principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission, subjectId: principal.userId });",
    mutation: "if (false) throw codedError('PERMISSION_DENIED', { permission, subjectId: principal.userId });",
    tests: ["test/access/pinnedGuards.test.ts"],
    what: "a holder of sharing:manage who is no admin manages sharing rules",
  },
  {
    id: "sharing.ruleChangeAdminOnly", area: "sharing rules", file: "plugins/sharing/sharingRuleRoutes.ts",
    original: "adminOnly(caller, PERMISSION);",
    mutation: "if (false) adminOnly(caller, PERMISSION);",
    tests: ["test/access/delegationRoutes.test.ts"],
    what: "a holder of sharing:manage who is no admin changes a sharing rule",
  },
  {
    id: "sharing.fieldPreviewAdminOnly", area: "sharing rules", file: "plugins/sharing/fieldPreviewRoute.ts",
    original: "      adminOnly(callerOf(request), PERMISSION);",
    mutation: "      if (false) adminOnly(callerOf(request), PERMISSION);",
    tests: ["test/access/fieldPreview.test.ts"],
    what: "a holder of access:preview who is no admin learns which users read which fields",
  },
  {
    id: "sharing.recipientExists", area: "sharing rules", file: "plugins/sharing/checkRecipient.ts",
    original: "if (found.items.length === 0) {",
    mutation: "if (false) {",
    tests: ["test/access/delegationAndSharing.test.ts"],
    what: "a share or rule names a position that does not exist",
  },

  // delete rights
  {
    id: "delete.baseline", area: "delete rights", file: "plugins/data/access/objectPermissions.ts",
    original: "{ ...NONE, read: true, create: true, edit: true };",
    mutation: "{ ...NONE, read: true, create: true, edit: true, delete: true };",
    tests: ["test/access/pureCores.test.ts", "test/access/securityMatrix.test.ts"],
    what: "every member may delete",
  },
  {
    id: "delete.objectPermission", area: "delete rights", file: "plugins/data/engine/writeRecords.ts",
    original: "    requireAction(profile, principal, object, action);",
    mutation: "    void requireAction;",
    tests: ["test/access/securityMatrix.test.ts"],
    what: "the object permission (create, edit, delete) is not checked on writes",
  },

  // public_read
  {
    id: "publicRead.readOnly", area: "public_read", file: "plugins/data/access/rowScope.ts",
    original: "(op === 'read' && object.sharingModel === 'public_read')",
    mutation: "object.sharingModel === 'public_read'",
    tests: ["test/access/guardCores.test.ts", "test/access/guards.test.ts"],
    what: "public_read opens every row for edit too",
  },

  // search
  {
    id: "search.readableFields", area: "search", file: "plugins/search/createSearchService.ts",
    original: "const list = indexed.fields.filter((f) => readable.has(f.name));",
    mutation: "const list = indexed.fields;",
    tests: ["test/search/fieldSecurity.test.ts"],
    what: "search matches on fields the caller may not read",
  },
  {
    id: "search.visibleRecords", area: "search", file: "plugins/search/fetchVisible.ts",
    original: "limit: chunk.length }, ctx, { total: false });",
    mutation: "limit: chunk.length }, { ...ctx, system: true }, { total: false });",
    tests: ["test/access/exportSearch.test.ts"],
    what: "search answers records the caller may not read",
  },

  // cursors
  {
    id: "cursors.signature", area: "cursors", file: "plugins/data/query/cursor.ts",
    original: "if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw",
    mutation: "if (given.length !== expected.length) throw",
    tests: ["test/data/cursor.test.ts"],
    what: "a forged cursor is accepted",
  },
  {
    id: "cursors.queryShape", area: "cursors", file: "plugins/data/query/cursor.ts",
    original: "if (payload.s !== shape) throw",
    mutation: "if (false) throw",
    tests: ["test/data/cursor.test.ts"],
    what: "a cursor of another query is accepted",
  },

  // delegation
  {
    id: "delegation.adminScope", area: "delegation", file: "plugins/data/access/delegation.ts",
    original: "if (position.admin_scope) throw refuse(",
    mutation: "if (false) throw refuse(",
    tests: ["test/access/pureCores.test.ts", "test/access/delegationRules.test.ts"],
    what: "an admin-scope position is delegated",
  },
  {
    id: "delegation.directHolderOnly", area: "delegation", file: "plugins/data/access/delegation.ts",
    original: "if (direct.length === 0) {",
    mutation: "if (false) {",
    tests: ["test/access/pureCores.test.ts", "test/access/delegationRules.test.ts"],
    what: "a delegate re-delegates a position it holds through a delegation",
  },
  {
    id: "delegation.thirtyDays", area: "delegation", file: "plugins/data/access/delegation.ts",
    original: "if (until - from > MAX_DELEGATION_DAYS * DAY_MS) throw",
    mutation: "if (false) throw",
    tests: ["test/access/pureCores.test.ts", "test/access/delegationRules.test.ts"],
    what: "a delegation lasts longer than 30 days",
  },
  {
    id: "delegation.withinOwnWindow", area: "delegation", file: "plugins/data/access/delegation.ts",
    original: "if (!direct.some((r) => covers(r, from, until))) {",
    mutation: "if (false) {",
    tests: ["test/access/pureCores.test.ts", "test/access/delegationRules.test.ts"],
    what: "a delegation outlives the delegator's own assignment",
  },
  {
    id: "delegation.delegatedByFixed", area: "delegation", file: "plugins/data/access/delegation.ts",
    original: "if (merged.delegated_by !== previous.delegated_by) {",
    mutation: "if (false) {",
    tests: ["test/access/pureCores.test.ts", "test/access/delegationRules.test.ts"],
    what: "a delegated admin changes delegated_by",
  },
  {
    id: "delegation.routesConcernCaller", area: "delegation", file: "plugins/sharing/delegablePositions.ts",
    original: "return caller.isAdmin || row.user_id === caller.userId || row.delegated_by === caller.userId;",
    mutation: "return true;",
    tests: ["test/access/delegationRoutes.test.ts"],
    what: "a member ends (or lists) a delegation it neither gave nor received",
  },
  {
    id: "delegation.addressForDelegatorsOnly", area: "delegation", file: "plugins/sharing/delegationRoutes.ts",
    original: "if (!offered.some((d) => d.position === input.position)) {",
    mutation: "if (false) {",
    tests: ["test/access/delegationRoutes.test.ts"],
    what: "a member holding nothing delegatable learns through POST /access/delegations whether an address has an account",
  },

  // scopes
  {
    id: "scopes.routes", area: "scopes", file: "plugins/http/authGuard.ts",
    original: "const refusal = scope && scopeRefusal(principal, scope, `${route.method} ${route.fullPath}`);",
    mutation: "const refusal = null;",
    tests: ["test/scopes/routeScopes.test.ts"],
    what: "a scoped credential uses routes outside its scopes",
  },
  {
    id: "scopes.engineWrites", area: "scopes", file: "plugins/data/engine/createDataEngine.ts",
    original: "requireScope(ctx.principal, 'data:write', `${operation} on object",
    mutation: "requireScope(ctx.principal, 'data:read', `${operation} on object",
    tests: ["test/scopes/keyScopes.test.ts"],
    what: "a data:read credential writes through the engine (MCP, AI, actions)",
  },
  {
    id: "scopes.writeOnlyAnswers", area: "scopes", file: "plugins/data/engine/createDataEngine.ts",
    original: "const blind = (ctx: DataContext) => ctx.system !== true && !holdsScope(ctx.principal, 'data:read');",
    mutation: "const blind = (ctx: DataContext) => false;",
    tests: ["test/scopes/writeOnlyAnswers.test.ts"],
    what: "a write-only credential reads records through the answers of its writes",
  },

  // AI queue
  {
    id: "ai.agentPermission", area: "AI queue", file: "plugins/ai/conversations.ts",
    original: "if (agent.permission !== null && !holdsPermission(caller.principal, agent.permission)) {",
    mutation: "if (false as boolean) {",
    tests: ["test/ai/agentPermission.test.ts"],
    what: "a holder of ai:chat without an agent's permission key starts a conversation with the agent and talks to it",
  },
  {
    id: "ai.selfApproval", area: "AI queue", file: "plugins/ai/pendingActions.ts",
    original: "if (!deps.allowSelfApproval && String(row.proposed_by) === caller.principal.userId) throw",
    mutation: "if (false) throw",
    tests: ["test/ai/approvalGuards.test.ts"],
    what: "the proposer approves her own pending action",
  },
  {
    id: "ai.accessObjectsUndeclared", area: "AI queue", file: "plugins/ai/runTool.ts",
    original: "if (AGENT_ACCESS_OBJECTS.has(object) && !deps.agent.accessObjects.includes(object)) {",
    mutation: "if (false) {",
    tests: ["test/ai/approvalGuards.test.ts"],
    what: "an agent's write tools target the access objects it does not declare",
  },
  {
    id: "ai.queueVisibility", area: "AI queue", file: "plugins/ai/pendingActions.ts",
    original: "if (!row || (!isApprover(caller.principal) && String(row.owner_id) !== caller.principal.userId)) {",
    mutation: "if (!row) {",
    tests: ["test/ai/agents.test.ts"],
    what: "a member reads and decides the pending actions of others' conversations",
  },
  {
    id: "ai.streamedTurnKey", area: "AI queue", file: "plugins/ai/aiRoutes.ts",
    original: "path: '/ai/conversations/:id/messages/stream', tags, permission: 'ai:chat',",
    mutation: "path: '/ai/conversations/:id/messages/stream', tags,",
    tests: ["test/ai/conversationStream.test.ts"],
    what: "a user without ai:chat runs a streamed conversation turn",
  },
  {
    id: "ai.seenFieldSecurity", area: "AI queue", file: "plugins/ai/pendingActions.ts",
    original: "seen = Object.fromEntries(Object.entries(seen).filter(([field]) => readable.has(field)));",
    mutation: "seen = { ...seen };",
    tests: ["test/ai/pendingSeen.test.ts"],
    what: "an approver reads, in the record a model proposed on, a field hidden from her",
  },

  // MCP host checks
  {
    id: "mcp.hostCheck", area: "MCP host checks", file: "plugins/mcp/hostGuard.ts",
    original: "if (!hostOk) return codedError('MCP_HOST_NOT_ALLOWED'",
    mutation: "if (false) return codedError('MCP_HOST_NOT_ALLOWED'",
    tests: ["test/mcp/pureCores.test.ts", "test/mcp/httpSecurity.test.ts"],
    what: "a request with a foreign Host (DNS rebinding) reaches the MCP endpoint",
  },
  {
    id: "mcp.originCheck", area: "MCP host checks", file: "plugins/mcp/hostGuard.ts",
    original: "if (!originOk) {",
    mutation: "if (false) {",
    tests: ["test/mcp/pureCores.test.ts", "test/mcp/httpSecurity.test.ts"],
    what: "a browser page of another origin reaches the MCP endpoint",
  },

  // MCP scopes
  {
    id: "mcp.toolScopes", area: "MCP scopes", file: "plugins/mcp/createToolbox.ts",
    original: "const refusal = scopeRefusal(ctx.principal, spec.scope, `the MCP tool ${name}`);",
    mutation: "const refusal = null;",
    tests: ["test/mcp/httpTools.test.ts"],
    what: "a scoped credential calls MCP tools outside its scopes",
  },
  {
    id: "mcp.sessionsPerCredential", area: "MCP scopes", file: "plugins/mcp/sessionStore.ts",
    original: "if (ofCredential.length < this.limits.perCredential) break;",
    mutation: "break;",
    tests: ["test/mcp/pureCores.test.ts", "test/mcp/sessionLimits.test.ts"],
    what: "one credential opens every MCP session of the process",
  },

  // hook signatures
  {
    id: "hooks.signatureMatch", area: "hook signatures", file: "plugins/automation/verifySignature.ts",
    original: "return match ? { ok: true, signature: hex } : { ok: false, reason: 'mismatch' };",
    mutation: "return { ok: true, signature: hex };",
    tests: ["test/automation/pureCores.test.ts"],
    what: "an inbound hook with a wrong signature starts its flow",
  },
  {
    id: "hooks.staleTimestamp", area: "hook signatures", file: "plugins/automation/verifySignature.ts",
    original: "if (Math.abs(Math.floor(now / 1000) - parsed.t) > SIGNATURE_TOLERANCE_S) return",
    mutation: "if (false) return",
    tests: ["test/automation/pureCores.test.ts"],
    what: "a signed request older than the tolerance is accepted",
  },

  // hook delivery ids
  {
    id: "hooks.replaySignature", area: "hook delivery ids", file: "plugins/automation/hookRoute.ts",
    original: "const keys = [signatureDelivery(check.signature), ...(delivery !== null ? [delivery] : [])];",
    mutation: "const keys = [...(delivery !== null ? [delivery] : [])];",
    tests: ["test/automation/hooksAndSweep.test.ts"],
    what: "a replayed signed request with a changed X-OSR-Delivery starts another run",
  },
  {
    id: "hooks.deliveryId", area: "hook delivery ids", file: "plugins/automation/hookRoute.ts",
    original: "const keys = [signatureDelivery(check.signature), ...(delivery !== null ? [delivery] : [])];",
    mutation: "const keys = [signatureDelivery(check.signature)];",
    tests: ["test/automation/hooksAndSweep.test.ts"],
    what: "a redelivery (same X-OSR-Delivery, signed anew) starts another run",
  },

  // approvals
  {
    id: "approvals.onlyApproversDecide", area: "approvals", file: "plugins/approvals/createApprovalService.ts",
    original: "if (!slate.users.includes(principal.userId)) throw denied(",
    mutation: "if (false) throw denied(",
    tests: ["test/approvals/approvals.test.ts"],
    what: "anyone who sees a request decides it",
  },
  {
    id: "approvals.visibility", area: "approvals", file: "plugins/approvals/approvalReads.ts",
    original: "if (!sees) throw notFound(id);",
    mutation: "if (false) throw notFound(id);",
    tests: ["test/approvals/approvals.test.ts"],
    what: "anyone reads any approval request",
  },
  {
    id: "approvals.recordStateReadable", area: "approvals", file: "plugins/approvals/approvalReads.ts",
    original: "await engine.get(object, recordId, { select: ['id'] }, { environmentId: env, principal });",
    mutation: "void 0;",
    tests: ["test/approvals/approvals.test.ts"],
    what: "a record's approval state (its lock) is read by someone who cannot read the record",
  },
  {
    id: "approvals.recordStateVisibility", area: "approvals", file: "plugins/approvals/approvalReads.ts",
    original: "return { lock, requests: await summaries(env, rows.items.filter(sees)) };",
    mutation: "return { lock, requests: await summaries(env, rows.items) };",
    tests: ["test/approvals/approvals.test.ts"],
    what: "a reader of a record lists its approval requests without being their submitter, approver or an admin",
  },

  // record locks
  {
    id: "locks.recordLock", area: "record locks", file: "plugins/approvals/checkRecordLock.ts",
    original: "if (userId && (request.approvers as StepSlate).users.includes(userId)) return;",
    mutation: "if (userId) return;",
    tests: ["test/approvals/approvals.test.ts"],
    what: "a record under approval is edited by anyone, not only its approvers",
  },

  // forms
  {
    id: "forms.lookupsAsCaller", area: "forms", file: "plugins/forms/createFormsService.ts",
    original: "system: true, lookupReader: input.principal,",
    mutation: "system: true, lookupReader: undefined,",
    tests: ["test/forms/formLookups.test.ts"],
    what: "a form submission references records its submitter cannot see",
  },
  {
    id: "forms.anonymous", area: "forms", file: "plugins/forms/createFormsService.ts",
    original: "if (!form.allowAnonymous && !principal) throw codedError('UNAUTHENTICATED');",
    mutation: "if (false) throw codedError('UNAUTHENTICATED');",
    tests: ["test/forms/formsRoutes.test.ts"],
    what: "an anonymous caller submits a members' form",
  },
  {
    id: "forms.onlyFormFields", area: "forms", file: "plugins/forms/validateSubmission.ts",
    original: "else errors.push({ path: label, message: 'is not a field of this form' });",
    mutation: "else continue;",
    tests: ["test/forms/validateSubmission.test.ts", "test/forms/formsRoutes.test.ts"],
    what: "a submission sets fields the form does not show",
  },
  {
    id: "forms.ownerField", area: "forms", file: "plugins/forms/validateSubmission.ts",
    original: "if (key === 'owner_id') errors.push(",
    mutation: "if (key === 'owner_id') continue; else if (false) errors.push(",
    tests: ["test/forms/validateSubmission.test.ts", "test/forms/formsRoutes.test.ts"],
    what: "a submission sets the owner",
  },

  // batch
  {
    id: "batch.objectServed", area: "batch", file: "plugins/rest/runBatch.ts",
    original: "  apiObject(metadata, op.object, METHODS[op.method]);",
    mutation: "  void METHODS;",
    tests: ["test/rest/badInput.test.ts"],
    what: "a batch operation reaches an object or method the API does not serve",
  },

  // upsert
  {
    id: "upsert.hiddenRecordId", area: "upsert", file: "plugins/data/engine/upsertRecord.ts",
    original: "if (isCodedError(error) && error.code === 'NOT_FOUND' && error.details.id === id.slice(0, 64)) {",
    mutation: "if (false) {",
    tests: ["test/rest/upsertAccess.test.ts"],
    what: "an upsert onto a hidden record answers its id",
  },

  // restore and purge
  {
    id: "restore.rowSecurity", area: "restore and purge", file: "plugins/data/engine/trashRecords.ts",
    original: "  await guardRow(deps, trx, object, ctx, access, trashed);",
    mutation: "  void guardRow;",
    tests: ["test/access/pinnedGuards.test.ts"],
    what: "restore ignores the row scope (read and edit) and contributed scopes",
  },
  {
    id: "restore.deleterOnly", area: "restore and purge", file: "plugins/data/engine/trashRecords.ts",
    original: "if (!anyone && trashed[DELETED_BY] !== access!.principal.userId) throw notFound(object, id);",
    mutation: "if (false) throw notFound(object, id);",
    tests: ["test/rest/recordTrash.test.ts"],
    what: "a member restores a record someone else trashed",
  },
  {
    id: "restore.deletePermission", area: "restore and purge", file: "plugins/data/engine/trashRecords.ts",
    original: "if (access && !anyone) requireAction(access.profile, access.principal, object, 'delete');",
    mutation: "if (false) requireAction(access.profile, access.principal, object, 'delete');",
    tests: ["test/access/pinnedGuards.test.ts", "test/rest/recordTrash.test.ts"],
    what: "a member without delete restores",
  },
  {
    id: "purge.modifyAll", area: "restore and purge", file: "plugins/data/engine/trashRecords.ts",
    original: "if (access) requireAction(access.profile, access.principal, object, 'modifyAll');",
    mutation: "if (false) requireAction(access.profile, access.principal, object, 'modifyAll');",
    tests: ["test/rest/recordTrash.test.ts"],
    what: "a member without modify all purges",
  },

  // files
  {
    id: "files.editToUpload", area: "files", file: "plugins/files/fileRoutes.ts",
    original: "if (!explained.edit.allowed) throw codedError(",
    mutation: "if (false) throw codedError(",
    tests: ["test/records/files.test.ts"],
    what: "a reader who may not edit the record uploads and deletes its files",
  },
  {
    id: "files.allowedTypes", area: "files", file: "plugins/files/fileRoutes.ts",
    original: "if (!typeAllowed(contentType, options.allowedTypes)) {",
    mutation: "if (false) {",
    tests: ["test/records/files.test.ts"],
    what: "a file of a type not allowed is stored",
  },
  {
    id: "records.readableRecord", area: "files", file: "capabilities/recordRouteAccess.ts",
    original: "await engine.get(object.name, id, { select: ['id'] }, ctx);",
    mutation: "await engine.get(object.name, id, { select: ['id'] }, systemCtx(ctx));",
    tests: ["test/records/comments.test.ts"],
    what: "the comments and files of a record the caller cannot read are served and written",
  },

  // comments
  {
    id: "comments.authorOnly", area: "comments", file: "plugins/comments/commentRoutes.ts",
    original: "if (principal.isAdmin || row.owner_id === principal.userId) return;",
    mutation: "return;",
    tests: ["test/records/comments.test.ts"],
    what: "a member edits or deletes another's comment",
  },

  // OTP limits
  {
    id: "otp.cooldown", area: "OTP limits", file: "kernel/windowRateLimiter.ts",
    original: "if (last !== undefined && now - last < spacingMs) return",
    mutation: "if (false) return",
    tests: ["test/auth/phoneCodeLimiter.test.ts"],
    what: "codes are texted without the cooldown",
  },
  {
    id: "otp.hourlyCap", area: "OTP limits", file: "kernel/windowRateLimiter.ts",
    original: "if (recent.length >= rule.max) return",
    mutation: "if (false) return",
    tests: ["test/auth/phoneCodeLimiter.test.ts"],
    what: "codes are texted past the hourly cap",
  },
  {
    id: "otp.acrossProcesses", area: "OTP limits", file: "kernel/windowRateLimiter.ts",
    original: "const refused = await this.sharedRolling(this.shared, `${this.prefix}${key}`, rule);",
    mutation: "const refused = null as RollingRefusal | null;",
    tests: ["test/auth/sharedAuthLimits.test.ts"],
    what: "a number's cooldown and hourly cap hold per process only: behind a load balancer or with workers, each process texts its own share of codes to one number",
  },
  {
    id: "otp.perIp", area: "OTP limits", file: "plugins/auth/phoneCodeLimiter.ts",
    original: "if (ipWait > 0) throw",
    mutation: "if (false) throw",
    tests: ["test/auth/phoneCodeLimiter.test.ts"],
    what: "one address requests codes for any number of phones",
  },

  // query cost
  {
    id: "cost.maxJoins", area: "query cost", file: "plugins/data/query/parseQuery.ts",
    original: "if (options.maxJoins !== undefined && Array.isArray(query.joins) && query.joins.length > options.maxJoins) throw",
    mutation: "if (false) throw",
    tests: ["test/rest/queryCost.test.ts"],
    what: "a query holds more joins than plugins.data.maxJoins",
  },
  {
    id: "cost.celEstimate", area: "query cost", file: "metadata/cel/analyzeExpression.ts",
    original: "if (cost > CEL_LIMITS.maxCost) {",
    mutation: "if (false) {",
    tests: ["test/data/celOperandCost.test.ts"],
    what: "a caller-supplied CEL expression over the estimated cost bound is evaluated",
  },
  {
    id: "cost.celDeadline", area: "query cost", file: "metadata/cel/meterEvaluation.ts",
    original: "if (performance.now() > meter.deadline) throw",
    mutation: "if (false) throw",
    tests: ["test/metadata/celCost.test.ts"],
    what: "a CEL evaluation runs past its deadline",
  },

  // organization scoping
  {
    id: "org.insertStamp", area: "organization scoping", file: "plugins/org-scoping/orgScope.ts",
    original: "if (given !== undefined && given !== null && given !== session.org) throw",
    mutation: "if (false) throw",
    tests: ["test/access/orgScoping.test.ts"],
    what: "a record is created in another organization",
  },

  // row security
  {
    id: "references.hiddenLookup", area: "row security", file: "plugins/data/engine/writeRecords.ts",
    original: "const own = ctx.system && ctx.lookupReader === null ? NOTHING : access ? readScope(access.profile) : undefined;",
    mutation: "const own = ctx.system && ctx.lookupReader === null ? NOTHING : undefined;",
    tests: ["test/access/hiddenReferences.test.ts"],
    what: "a lookup names a record its writer cannot read",
  },

  // share links
  {
    id: "shareLinks.readAsCreator", area: "share links", file: "plugins/share-links/createShareLinks.ts",
    original: "record = await deps.engine.get(object.name, view.recordId, {}, { environmentId, principal: creator });",
    mutation: "record = await deps.engine.get(object.name, view.recordId, {}, { environmentId, principal: creator, system: true });",
    tests: ["test/share-links/readTimeChecks.test.ts"],
    what: "a link reads its record as the engine, not as its creator now (lost access and hidden fields are served)",
  },
  {
    id: "shareLinks.onlyFieldsTheCreatorReads", area: "share links", file: "plugins/share-links/createShareLinks.ts",
    original: "const shown = chosen.filter((name) => name !== 'id' && Object.hasOwn(record, name) && Object.hasOwn(object.fields, name));",
    mutation: "const shown = chosen.filter((name) => name !== 'id' && Object.hasOwn(object.fields, name));",
    tests: ["test/share-links/readTimeChecks.test.ts"],
    what: "a chosen field hidden from the creator (at creation or since) is named in the link's answer",
  },
  {
    id: "shareLinks.objectServedAtRead", area: "share links", file: "plugins/share-links/createShareLinks.ts",
    original: "if (!object || !object.apiEnabled || object.system || (object.apiMethods && !object.apiMethods.includes('get'))) throw linkNotFound();",
    mutation: "if (!object) throw linkNotFound();",
    tests: ["test/share-links/readTimeChecks.test.ts"],
    what: "a link to an object the API does not serve by id (apiEnabled false, no get, engine-owned) is read",
  },
  {
    id: "shareLinks.expired", area: "share links", file: "plugins/share-links/createShareLinks.ts",
    original: "if (view.status !== 'active') throw linkNotFound();",
    mutation: "if (view.status === 'revoked') throw linkNotFound();",
    tests: ["test/share-links/readTimeChecks.test.ts"],
    what: "an expired link is still read",
  },
  {
    id: "shareLinks.revokeOwnOnly", area: "share links", file: "plugins/share-links/createShareLinks.ts",
    original: "if (!row || (String(row.creator_id) !== principal.userId && !principal.isAdmin)) throw",
    mutation: "if (!row) throw",
    tests: ["test/share-links/shareLinks.test.ts"],
    what: "a member revokes another user's link",
  },
  {
    id: "shareLinks.listAllAdminsOnly", area: "share links", file: "plugins/share-links/createShareLinks.ts",
    original: "if (all && !principal.isAdmin) throw codedError('PERMISSION_DENIED'",
    mutation: "if (false) throw codedError('PERMISSION_DENIED'",
    tests: ["test/share-links/shareLinks.test.ts"],
    what: "a member lists every user's links",
  },

  // realtime
  {
    id: "realtime.objectServed", area: "realtime", file: "plugins/realtime/realtimeRoute.ts",
    original: "if (!object || !object.apiEnabled) throw codedError('NOT_FOUND'",
    mutation: "if (!object) throw codedError('NOT_FOUND'",
    tests: ["test/realtime/subscribeRefusals.test.ts"],
    what: "a stream follows an object with apiEnabled false",
  },
  {
    id: "realtime.listMethod", area: "realtime", file: "plugins/realtime/realtimeRoute.ts",
    original: "if (object.apiMethods !== null && !object.apiMethods.includes('list')) throw",
    mutation: "if (false) throw",
    tests: ["test/realtime/subscribeRefusals.test.ts"],
    what: "a stream follows an object whose apiMethods lack list",
  },
  {
    id: "realtime.checkedLikeAList", area: "realtime", file: "plugins/realtime/realtimeRoute.ts",
    original: "for (const subscription of subscriptions) await deps.engine.query(subscription.object, probe(subscription), ctx, { total: false });",
    mutation: "for (const subscription of subscriptions) void probe;",
    tests: ["test/realtime/realtime.test.ts"],
    what: "a stream opens with a where or fields naming a field hidden from the caller (a filter oracle)",
  },
  {
    id: "data.rollupScope", area: "data", file: "plugins/data/query/rollupFor.ts",
    original: "if (holds(live) && holds(ast.where)) return { rollup, scope: live };",
    mutation: "if (holds(ast.where)) return { rollup, scope: null };",
    tests: ["test/data/materializedDatasets.test.ts"],
    what: "a materialized dataset's counts answer a caller with a row scope as if she could read every row",
  },
  {
    id: "realtime.readAsGroup", area: "realtime", file: "plugins/realtime/subscriptionHub.ts",
    original: "const ctx = change.token === undefined ? group.ctx : { ...group.ctx, writeToken: change.token };",
    mutation: "const ctx = { ...group.ctx, system: true, ...(change.token === undefined ? {} : { writeToken: change.token }) };",
    tests: ["test/realtime/realtime.test.ts"],
    what: "changes are sent as the engine reads them, not as the subscriber may (others' records, hidden fields)",
  },
  {
    id: "realtime.groupedByWho", area: "realtime", file: "plugins/realtime/principalKey.ts",
    original: "principal.kind, principal.userId, principal.isAdmin,",
    mutation: "principal.kind, principal.isAdmin,",
    tests: ["test/realtime/realtimeProperty.test.ts"],
    what: "streams of different users with the same roles share one access group, read as whichever joined first (her records)",
  },
  {
    id: "realtime.revokedCredential", area: "realtime", file: "plugins/realtime/realtimeRoute.ts",
    original: "if (outcome !== 'unknown') for (const member of members) endIfChanged(member, outcome);",
    mutation: "if (outcome !== 'unknown' && outcome !== null) for (const member of members) endIfChanged(member, outcome);",
    tests: ["test/realtime/realtime.test.ts"],
    what: "a stream whose session was revoked goes on",
  },
  {
    id: "realtime.perUserLimit", area: "realtime", file: "plugins/realtime/realtimeRoute.ts",
    original: "if (counts.count(userKey) >= deps.options.maxConnectionsPerUser || counts.total >= deps.options.maxConnections) {",
    mutation: "if (counts.total >= deps.options.maxConnections) {",
    tests: ["test/realtime/realtime.test.ts"],
    what: "one user opens every stream of the process",
  },
  {
    id: "realtime.slowConsumer", area: "realtime", file: "plugins/realtime/eventStream.ts",
    original: "if (this.queue.length >= this.queueLimit) {",
    mutation: "if (false) {",
    tests: ["test/realtime/realtimeSlowReader.test.ts"],
    what: "a reader that stops reading is never dropped: its queue grows without bound",
  },

  // settings
  {
    id: "settings.adminsOnly", area: "settings", file: "plugins/settings/routes/settingsRoutes.ts",
    original: "if (!principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission: 'admin'",
    mutation: "if (false) throw codedError('PERMISSION_DENIED', { permission: 'admin'",
    tests: ["test/settings/settingsAccess.test.ts"],
    what: "a member reads and writes the environment's settings (its providers and credentials)",
  },
  {
    id: "settings.secretsWriteOnly", area: "settings", file: "plugins/settings/createSettingsService.ts",
    original: "values: joinSecrets(row.values, markers, patterns), secrets,",
    mutation: "values: joinSecrets(row.values, openAll(environmentId, row), patterns), secrets,",
    tests: ["test/settings/settingsAccess.test.ts"],
    what: "a settings read answers a secret's value",
  },
  {
    id: "settings.sealedAtRest", area: "settings", file: "plugins/settings/createSettingsService.ts",
    original: "for (const [path, value] of secrets) sealed[path] = sealSecret(key, value, namespace);",
    mutation: "for (const [path, value] of secrets) sealed[path] = value;",
    tests: ["test/settings/settingsAccess.test.ts"],
    what: "a settings secret is stored in plain",
  },
  {
    id: "settings.authSecretNotInherited", area: "settings", file: "plugins/auth/authSettings.ts",
    original: "const { clientSecret: _secret, clientSecretEnv: _variable, ...rest } = social[id]!;",
    mutation: "const rest = social[id]!;",
    tests: ["test/auth/authSettings.test.ts", "test/settings/settingsAuth.test.ts"],
    what: "a sign-in provider a tenant admin points elsewhere gets the operator's client secret",
  },

  // datasets
  {
    id: "datasets.freshnessDroppedOnAccessChange", area: "datasets", file: "plugins/reports/runDataset.ts",
    original: "if (hit && ctx.writeToken === undefined && stamp !== null && hit.stamp === stamp && Date.now() - hit.at < freshness) return hit.run;",
    mutation: "if (hit && ctx.writeToken === undefined && stamp !== null && Date.now() - hit.at < freshness) return hit.run;",
    tests: ["test/reports/datasets.test.ts"],
    what: "a dataset answer remembered before a share was taken (or a permission set changed) is served after it",
  },
  {
    id: "datasets.freshnessSkippedForWriteToken", area: "datasets", file: "plugins/reports/runDataset.ts",
    original: "if (hit && ctx.writeToken === undefined && stamp !== null && hit.stamp === stamp && Date.now() - hit.at < freshness) return hit.run;",
    mutation: "if (hit && stamp !== null && hit.stamp === stamp && Date.now() - hit.at < freshness) return hit.run;",
    tests: ["test/reports/datasets.test.ts"],
    what: "a request carrying X-OSR-Write-Token is answered a dataset's remembered numbers from before its write",
  },

  // metadata views
  {
    id: "metaViews.objectItems", area: "metadata views", file: "plugins/meta/api/metaView.ts",
    original: "    if (!keep) return layers;",
    mutation: "    return layers;",
    tests: ["test/meta/views.test.ts"],
    what: "object items, their layers and the views section show a member view columns, sorts and filters on fields it may not read",
  },
  {
    id: "metaViews.history", area: "metadata views", file: "plugins/meta/api/metaView.ts",
    original: "      if (!keep) return history;",
    mutation: "      return history;",
    tests: ["test/meta/views.test.ts"],
    what: "the overlay history shows a member view definitions naming fields it may not read",
  },
  {
    id: "metaViews.hiddenWhere", area: "metadata views", file: "plugins/meta/api/readableView.ts",
    original: "if ([...fieldsOf(definition.where)].some((f) => !can(f))) return null;",
    mutation: "if (false) return null;",
    tests: ["test/meta/views.test.ts"],
    what: "a view filtering on a field the caller may not read is served (its condition tells about the field)",
  },
  {
    id: "metaViews.authorsOnlySeeAll", area: "metadata views", file: "plugins/meta/api/readableView.ts",
    original: "return principal !== null && (principal.isAdmin || principal.permissions.includes(AUTHOR_PERMISSION));",
    mutation: "return principal !== null;",
    tests: ["test/meta/views.test.ts"],
    what: "every signed-in caller sees view definitions as declared",
  },

  // settings: the sms and ai providers of an environment
  {
    id: "settings.smsChosenProviderOwnCredentials", area: "settings", file: "plugins/sms/environmentSenders.ts",
    original: "return values.provider !== undefined || given.baseUrl !== undefined || credentials.some((k) => given[k] !== undefined);",
    mutation: "return false;",
    tests: ["test/settings/settingsProviderCredentials.test.ts", "test/settings/settingsSms.test.ts"],
    what: "an SMS provider or server chosen in an environment's settings is sent the operator's credentials (TWILIO_*, VONAGE_* or the variables the config file names)",
  },
  {
    id: "settings.aiChosenBaseUrlOwnKey", area: "settings", file: "plugins/ai/settingsProviders.ts",
    original: "apiKey: given.apiKey ?? (chosen ? null : under!.apiKey),",
    mutation: "apiKey: given.apiKey ?? under?.apiKey ?? null,",
    tests: ["test/settings/settingsProviderCredentials.test.ts", "test/settings/settingsAi.test.ts"],
    what: "an AI server chosen in an environment's settings is sent the operator's key (OPENAI_API_KEY or the config file's apiKeyEnv)",
  },
  {
    id: "settings.smsEnvironmentOfPhoneCodes", area: "settings", file: "plugins/auth/phoneNumberPlugin.ts",
    original: "await sms.send({ to, body, environmentId });",
    mutation: "await sms.send({ to, body });",
    tests: ["test/settings/settingsSms.test.ts"],
    what: "an environment's sign-in codes go through the config file's SMS provider instead of the one its settings chose",
  },
  // settings: hosts chosen in settings
  {
    id: "settings.privateHostsRefused", area: "settings", file: "plugins/settings/createSettingsService.ts",
    original: "if (deps.privateHosts === 'deny') await checkSettingsHosts(",
    mutation: "if (false as boolean) await checkSettingsHosts(",
    tests: ["test/settings/settingsHosts.test.ts"],
    what: "a tenant admin's settings point the runtime at loopback, private or link-local addresses (the operator's network, cloud metadata) with privateHosts 'deny'",
  },
  {
    id: "settings.privateHostsLinkLocal", area: "settings", file: "plugins/settings/isPrivateAddress.ts",
    original: "['169.254.0.0', 16,",
    mutation: "['169.254.0.0', 32,",
    tests: ["test/settings/settingsHosts.test.ts"],
    what: "settings may choose the cloud metadata service (169.254.169.254) and other link-local addresses",
  },
  {
    id: "settings.privateHostsAtConnect", area: "settings", file: "plugins/settings/settingsConnections.ts",
    original: "const connector = buildConnector({ lookup });",
    mutation: "const connector = buildConnector({});",
    tests: ["test/settings/settingsConnections.test.ts", "test/settings/settingsHostsAtUse.test.ts"],
    what: "a name chosen in settings that resolves to the operator's network now (re-pointed after the write, or stored while 'allow') is connected to under privateHosts 'deny'",
  },
  {
    id: "settings.privateHostsLiteralAtConnect", area: "settings", file: "plugins/settings/settingsConnections.ts",
    original: "if (refused) callback(refused, null);",
    mutation: "if (false as boolean) callback(refused, null);",
    tests: ["test/settings/settingsConnections.test.ts", "test/settings/settingsHostsAtUse.test.ts"],
    what: "an address given literally in settings, or in a provider's redirect, is connected to under privateHosts 'deny'",
  },
  {
    id: "settings.privateHostsSmtpAtConnect", area: "settings", file: "plugins/settings/settingsConnections.ts",
    original: "return refused ? Promise.reject(refused) : open(host, port, timeoutMs, lookup);",
    mutation: "return open(host, port, timeoutMs, lookup);",
    tests: ["test/settings/settingsConnections.test.ts", "test/settings/settingsHostsAtUse.test.ts"],
    what: "an SMTP server chosen in settings at a private address is connected to under privateHosts 'deny'",
  },
  // operations (the operators' routes: admins only)
  {
    id: "operations.indexAdviceAdminsOnly", area: "operations", file: "plugins/rest/metricsRoutes.ts",
    original: "if (!principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission: 'admin', reason: 'index advice",
    mutation: "if (false) throw codedError('PERMISSION_DENIED', { permission: 'admin', reason: 'index advice",
    tests: ["test/advice/indexAdviceRoute.test.ts"],
    what: "a member reads the tables, columns and query shapes of every object (GET /metrics/index-advice)",
  },
  {
    id: "metaViews.agentInstructions", area: "metadata views", file: "plugins/meta/api/policyAudience.ts",
    original: "return principal !== null && (principal.isAdmin || principal.permissions.includes('metadata:write'));",
    mutation: "return principal !== null;",
    tests: ["test/ai/agents.test.ts"],
    what: "every member reads each agent's instructions, its system prompt (GET /meta/agent)",
  },
  {
    id: "operations.requireAdmin", area: "operations", file: "plugins/http/requireAdmin.ts",
    original: "if (!principal.isAdmin) throw codedError('PERMISSION_DENIED'",
    mutation: "if (false) throw codedError('PERMISSION_DENIED'",
    tests: ["test/ops/opsRoutes.test.ts"],
    what: "a member reads the job queue, hook deliveries, the lifecycle dry run and the plugin list, and retries dead jobs",
  },
  {
    id: "operations.jobsAdminsOnly", area: "operations", file: "plugins/jobs/jobRoutes.ts",
    original: "requireAdmin(request.principal, 'the queue holds the work of every user and plugin of the environment');",
    mutation: "void request.principal;",
    tests: ["test/ops/opsRoutes.test.ts"],
    what: "a member reads the queue's counts and the dead letters' last errors (GET /jobs)",
  },
  {
    id: "operations.jobAdminsOnly", area: "operations", file: "plugins/jobs/jobRoutes.ts",
    original: "requireAdmin(request.principal, 'a job is the work of any user or plugin of the environment');",
    mutation: "void request.principal;",
    tests: ["test/ops/opsRoutes.test.ts"],
    what: "a member reads any job's state and last error (GET /jobs/:id)",
  },
  {
    id: "operations.retryAdminsOnly", area: "operations", file: "plugins/jobs/jobRoutes.ts",
    original: "requireAdmin(request.principal, 'a retry runs the work of any user or plugin of the environment again');",
    mutation: "void request.principal;",
    tests: ["test/ops/opsRoutes.test.ts"],
    what: "a member runs a dead job again (POST /jobs/:id/retry)",
  },
  {
    id: "operations.deliveriesAdminsOnly", area: "operations", file: "plugins/automation/deliveriesRoute.ts",
    original: "requireAdmin(request.principal, 'hook deliveries name the flows other systems start and their runs');",
    mutation: "void request.principal;",
    tests: ["test/ops/opsRoutes.test.ts"],
    what: "a member lists the inbound hook deliveries and their runs",
  },
  {
    id: "operations.dryRunAdminsOnly", area: "operations", file: "plugins/lifecycle/dryRunRoute.ts",
    original: "requireAdmin(request.principal, \"the dry run counts every retention contract's rows in the environment\");",
    mutation: "void request.principal;",
    tests: ["test/ops/opsRoutes.test.ts"],
    what: "a member runs the lifecycle dry run (row counts of every retained table)",
  },
  {
    id: "operations.pluginsAdminsOnly", area: "operations", file: "plugins/http/pluginsRoute.ts",
    original: "requireAdmin(request.principal, 'the plugin list names the code this process runs and where it comes from');",
    mutation: "void request.principal;",
    tests: ["test/ops/opsRoutes.test.ts"],
    what: "a member lists the plugins, their sources and problems",
  },
];
