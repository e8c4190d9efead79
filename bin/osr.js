#!/usr/bin/env node
// The runtime is TypeScript end to end; tsx compiles it on load.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
