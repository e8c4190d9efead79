export * from './defineCapability.ts';
export * from './registry.ts';
export * from './httpRoutes.ts';
export * from './authSession.ts';
export * from './hooksRegistry.ts';
export * from './retentionRegister.ts';
export * from './runtimeInfo.ts';
