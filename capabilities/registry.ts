/**
 * The closed registry of capability tokens. A token missing here is a boot error, and,
 * through `CapabilityToken`, a type error in a plugin manifest.
 */
import type { CapabilityDefinition } from './defineCapability.ts';
import { authSession } from './authSession.ts';
import { hooksRegistry } from './hooksRegistry.ts';
import { httpRoutes } from './httpRoutes.ts';
import { httpServer } from './httpServer.ts';
import { retentionRegister } from './retentionRegister.ts';
import { runtimeInfo } from './runtimeInfo.ts';
import { secretsKeys } from './secretsKeys.ts';
import { dataEngine } from './dataEngine.ts';
import { dataDatabase } from './dataDatabase.ts';
import { metadataRegistry } from './metadataRegistry.ts';
import { emailSend } from './emailSend.ts';
import { authIdentity } from './authIdentity.ts';
import { searchIndex } from './searchIndex.ts';
import { lifecycleRetention } from './lifecycleRetention.ts';
import { accessGrants } from './accessGrants.ts';
import { dataScopes } from './dataScopes.ts';
import { smsSend } from './smsSend.ts';
import { jobsQueue } from './jobsQueue.ts';
import { eventsBus } from './eventsBus.ts';
import { eventsCounter } from './eventsCounter.ts';
import { actionsRegistry } from './actionsRegistry.ts';
import { notificationsSend } from './notificationsSend.ts';
import { flowsRunner } from './flowsRunner.ts';
import { automationSweep } from './automationSweep.ts';
import { ioExport } from './ioExport.ts';
import { mcpServer } from './mcpServer.ts';
import { dataIndexAdvice } from './dataIndexAdvice.ts';
import { auditRecord } from './auditRecord.ts';
import { dataWriteTokens } from './dataWriteTokens.ts';
import { settingsStore } from './settingsStore.ts';
import { devOutbox } from './devOutbox.ts';
import { kernelPlugins } from './kernelPlugins.ts';

const definitions = [httpRoutes, httpServer, authSession, hooksRegistry, retentionRegister, runtimeInfo, secretsKeys, metadataRegistry, dataEngine, dataDatabase, emailSend, authIdentity, searchIndex, accessGrants, dataScopes,
  smsSend, jobsQueue, eventsBus, eventsCounter, actionsRegistry, notificationsSend, lifecycleRetention,
  flowsRunner, automationSweep, ioExport, mcpServer, dataIndexAdvice, auditRecord, settingsStore, dataWriteTokens, devOutbox, kernelPlugins] as const;

type Definition = (typeof definitions)[number];

export type CapabilityToken = Definition['id'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ServiceOf<T extends CapabilityToken> = Extract<Definition, { id: T }> extends CapabilityDefinition<any, infer S> ? S : never;

export type ResolvedService<T extends CapabilityToken> = Extract<Definition, { id: T }>['cardinality'] extends 'multi' ? ServiceOf<T>[] : ServiceOf<T>;

export const capabilityRegistry: Readonly<Record<CapabilityToken, Definition>> = Object.freeze(
  Object.fromEntries(definitions.map((d) => [d.id, d])) as Record<CapabilityToken, Definition>,
);

export function isCapabilityToken(value: unknown): value is CapabilityToken {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(capabilityRegistry, value);
}

export function capabilityTokens(): CapabilityToken[] {
  return Object.keys(capabilityRegistry) as CapabilityToken[];
}
