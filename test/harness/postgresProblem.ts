import pg from 'pg';

const probes = new Map<string, Promise<string | null>>();

/** null when PostgreSQL answers at `url`, else why not. Probed once per URL and process. */
export function postgresProblem(url: string): Promise<string | null> {
  let probe = probes.get(url);
  if (!probe) {
    probe = (async () => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
      try {
        await client.connect();
        await client.query('select 1');
        return null;
      } catch (error) {
        return (error as Error).message || String(error);
      } finally {
        await client.end().catch(() => undefined);
      }
    })();
    probes.set(url, probe);
  }
  return probe;
}
