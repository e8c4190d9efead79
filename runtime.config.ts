import { defineConfig } from './runtime/configSchema.ts';

// The operator's file. Every key is documented in README.md (Configuration); environment
// variables (PORT, DATABASE_URL, OS_AUTH_SECRET, ...) override what is set here.
export default defineConfig({
  apps: ['metadata/apps/crm'],
  dataDir: 'data',
  server: { port: 3000, host: '127.0.0.1' },
  api: { requireAuth: true },
  plugins: {
    // Lead conversion for the CRM example app.
    crm: { enabled: true },
    // A third-party plugin loaded from a local folder, granted only what it needs.
    hello: { path: './examples/hello-plugin', grants: ['http.routes'], greeting: 'Hello from a plugin' },
  },
});
