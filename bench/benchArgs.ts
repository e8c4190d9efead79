import { parseArgs } from 'node:util';
import type { BenchDriver } from './databaseTarget.ts';

export interface BenchArgs {
  drivers: BenchDriver[];
  /** Explicitly asked for (--driver postgres): an unreachable PostgreSQL is an error, not a skip. */
  driverExplicit: boolean;
  duration: number;
  /** The duration is split into this many rounds per side, runtime and baseline alternating. */
  rounds: number;
  warmup: number;
  connections: number;
  rows: number;
  /** The scenario names asked for (`boot` among them), null for all. */
  scenarios: string[] | null;
  /** Write a V8 CPU profile of each server child (into a temporary directory, printed). */
  profile: boolean;
  /** A git revision whose compiled runtime takes the baseline's place (see compareTree.ts); null for the baseline. */
  compare: string | null;
  /** plugins.data.readers of the runtime (SQLite read workers; 0 reads on the main thread only); null for its default. */
  readers: number | null;
  /** plugins.data.pageCacheMb of the runtime (0: every page read); null for its default. */
  pageCacheMb: number | null;
}

export const USAGE = `Usage: npm run bench -- [options]
  --driver sqlite|postgres|both   databases to run on (default both)
  --duration SECONDS              measured seconds per side and scenario (default 10)
  --rounds N                      split them into N rounds, the two sides alternating (default 4)
  --warmup SECONDS                unmeasured load before each run (default 2)
  --connections N                 concurrent connections (default 16)
  --rows N                        seeded rows (default 100000)
  --scenario NAME[,NAME...]       run only these scenarios ('boot' is one); see bench/README.md
  --profile                       write a --cpu-prof profile of each server child
  --compare REV                   measure the runtime against its own compiled tree at git
                                  revision REV (in place of the baseline; no targets, no latest.json)
  --readers N                     the runtime's plugins.data.readers (SQLite read workers, 0 = none;
                                  default: the runtime's own)
  --page-cache-mb N               the runtime's plugins.data.pageCacheMb (remembered pages, 0 = none;
                                  default: the runtime's own)
  -h, --help`;

function positive(name: string, raw: string | undefined, fallback: number, allowZero = false): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) throw new Error(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, not '${raw}'`);
  return n;
}

export function parseBenchArgs(argv: string[]): BenchArgs | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      driver: { type: 'string', default: 'both' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      rows: { type: 'string' },
      scenario: { type: 'string' },
      profile: { type: 'boolean', default: false },
      compare: { type: 'string' },
      readers: { type: 'string' },
      'page-cache-mb': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const driver = values.driver!;
  if (!['sqlite', 'postgres', 'both'].includes(driver)) throw new Error(`--driver must be sqlite, postgres or both, not '${driver}'`);
  return {
    drivers: driver === 'both' ? ['sqlite', 'postgres'] : [driver as BenchDriver],
    driverExplicit: driver !== 'both',
    duration: positive('duration', values.duration, 10),
    rounds: Math.floor(positive('rounds', values.rounds, 4)),
    warmup: positive('warmup', values.warmup, 2, true),
    connections: Math.floor(positive('connections', values.connections, 16)),
    rows: Math.floor(positive('rows', values.rows, 100_000)),
    scenarios: values.scenario === undefined ? null : values.scenario.split(',').map((name) => name.trim()).filter((name) => name !== ''),
    profile: values.profile ?? false,
    compare: values.compare ?? null,
    readers: values.readers === undefined ? null : Math.floor(positive('readers', values.readers, 0, true)),
    pageCacheMb: values['page-cache-mb'] === undefined ? null : positive('page-cache-mb', values['page-cache-mb'], 0, true),
  };
}
