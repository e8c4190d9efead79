/** The kernel's public API: what plugins, third-party plugins included, may import. */
export { definePlugin, perConsumer } from './definePlugin.ts';
export type { AnyPlugin, PerConsumer, PluginContext, PluginManifest, Tokens } from './definePlugin.ts';
export { createKernel } from './createKernel.ts';
export type { Kernel, KernelOptions, Phase, PluginState, PluginStatus } from './createKernel.ts';
export { checkGraph } from './checkGraph.ts';
export type { GraphCheck } from './checkGraph.ts';
export type { PluginEntry } from './pluginEntry.ts';
export { PROTOCOL_VERSION, checkProtocol } from './protocol.ts';
export { CodedError, KernelBootError, codedError, isCodedError, formatErrorMessage, ERRORS } from './errors.ts';
export type { ErrorCode, ErrorDetails } from './errors.ts';
export { createLogger, silentLogger } from './logger.ts';
export type { Logger } from './logger.ts';
// Plugin options are zod schemas the kernel validates: plugins build them with the runtime's own zod.
export { z } from 'zod';
