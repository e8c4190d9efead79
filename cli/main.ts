import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { isCodedError, KernelBootError } from '../kernel/errors.ts';
import { runsCompiled } from '../kernel/importModule.ts';
import { createRuntime } from '../runtime/createRuntime.ts';
import { formatJobs, listJobs, retryJob } from './listJobs.ts';
import { formatPlugins, listPlugins } from './listPlugins.ts';
import { formatLifecycle, runLifecycleCommand } from './runLifecycle.ts';
import { formatDoctor, runDoctor } from './runDoctor.ts';
import { formatSweep, runSweepCommand } from './runSweep.ts';
import { serveMcpStdio } from './serveMcpStdio.ts';
import { workersPlan } from './workersDatabase.ts';

const USAGE = `Usage: osr <command> [options]

Commands:
  start      Serve the API (default command)
  doctor     Check config, secret, database, capability graph and protocol; exit 1 on a problem
  plugins    List plugins with their capability tokens and state
  jobs       Job backend in use (embedded or bullmq), counts per job name and state, dead letters
  jobs retry ID   Queue a dead job again
  lifecycle  Apply the retention contracts now in every environment and print what each removed
  lifecycle --dry-run   Print what each contract would remove; remove nothing
  automation sweep [--date YYYY-MM-DD]   Start the time-relative flows for a day (default today, UTC), once per record and offset
  mcp --stdio   Serve the MCP tools over stdin/stdout as the user of OS_MCP_STDIO_API_KEY (needs OS_MCP_STDIO_ENABLED=true)

Options:
  --config PATH   runtime config (.ts, .js, .mjs or .json); default ./runtime.config.ts if present
  --port N        port to listen on (start; overrides PORT and server.port)
  --workers N     processes serving the API on this machine (start; default: the number of cores; 1: this process alone)
  --json          machine-readable output (doctor, plugins, jobs, lifecycle, automation sweep)
  --dry-run       count instead of removing (lifecycle)
  --date DAY      the day to sweep, YYYY-MM-DD (automation sweep)
  --stdio         serve over stdin/stdout (mcp)
  -h, --help      this text`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      workers: { type: 'string' },
      json: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      date: { type: 'string' },
      stdio: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals[0] ?? 'start';
  if (values.help || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  const base = values.config ? { configPath: values.config } : {};
  switch (command) {
    case 'doctor': {
      const report = await runDoctor(base);
      console.log(values.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
      return report.ok ? 0 : 1;
    }
    case 'plugins': {
      const rows = await listPlugins(base);
      console.log(values.json ? JSON.stringify(rows, null, 2) : formatPlugins(rows));
      return 0;
    }
    case 'jobs': {
      if (positionals[1] === 'retry') {
        if (!positionals[2]) {
          console.error('Usage: osr jobs retry ID (the id of a dead job, as osr jobs lists it)');
          return 2;
        }
        const result = await retryJob(base, positionals[2]);
        console.log(values.json ? JSON.stringify(result) : `job ${result.id} queued again in environment ${result.environmentId}`);
        return 0;
      }
      const report = await listJobs(base);
      console.log(values.json ? JSON.stringify(report, null, 2) : formatJobs(report));
      return 0;
    }
    case 'lifecycle': {
      const report = await runLifecycleCommand(base, values['dry-run']);
      console.log(values.json ? JSON.stringify(report, null, 2) : formatLifecycle(report));
      return 0;
    }
    case 'automation': {
      if (positionals[1] !== 'sweep') {
        console.error('Usage: osr automation sweep [--date YYYY-MM-DD] [--config PATH] [--json]');
        return 2;
      }
      const report = await runSweepCommand(base, values.date);
      console.log(values.json ? JSON.stringify(report, null, 2) : formatSweep(report));
      return 0;
    }
    case 'mcp': {
      if (!values.stdio) {
        console.error('Usage: osr mcp --stdio [--config PATH] (Streamable HTTP is served by osr start at /api/v1/mcp when OS_MCP_SERVER_ENABLED=true)');
        return 2;
      }
      return serveMcpStdio(base);
    }
    case 'start': {
      const env = values.port ? { ...process.env, PORT: values.port } : process.env;
      const runtime = await createRuntime({ ...base, env, developmentAdmin: true });
      // A worker of `osr start --workers N` (bin/clusterPrimary.js): the primary starts the others once the first serves.
      const workers = cluster.isWorker && process.env.OSR_WORKERS ? Number(process.env.OSR_WORKERS) : 1;
      const plan = workersPlan(runtime.config.environments, workers, process.env.OSR_WORKERS_ASKED === '1');
      if (plan.alone) console.error(plan.line);
      await runtime.start();
      runtime.kernel.installSignalHandlers();
      const url = runtime.http().url();
      const code = runsCompiled() ? 'dist/' : 'the TypeScript sources';
      const worker = workers <= 1 ? '' : plan.alone ? ` (worker ${process.pid}, alone: in-memory database)` : ` (worker ${process.pid}, one of ${workers})`;
      console.log(url ? `osr ${runtime.config.environmentId}: serving ${url}/api/v1 (database ${runtime.config.databaseUrl.split(':')[0]}) from ${code}${worker}` : 'osr: started without a listening socket');
      if (url && runtime.kernel.states().some((p) => p.name === 'console' && (p.status === 'started' || p.status === 'ready'))) console.log(`osr: the console is at ${url}/console/`);
      if (worker) process.send?.({ osr: 'ready', ...(plan.alone ? { alone: true } : {}) });
      return -1;
    }
    default:
      console.error(`Unknown command '${command}'.\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    // One report shape for every refusal: a single coded error is a report of one problem.
    console.error(error instanceof KernelBootError ? error.message : isCodedError(error) ? new KernelBootError([error]).message : error);
    // A failed boot ends the process now: whatever a plugin left open (a pool, a timer) must not
    // keep it alive. stderr and the logger write synchronously, so nothing printed is lost.
    process.exit(1);
  },
);
