import type { ContractOutcome } from '../../../../capabilities/lifecycleRetention.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { formatNumber, formatTime } from './opsFormat.ts';
import { useAnswer } from './useAnswer.ts';
import { Scroll } from './Scroll.tsx';

interface DryRun {
  dryRun: boolean;
  ranAt: string;
  environmentId: string;
  contracts: ContractOutcome[];
}

function outcome(c: ContractOutcome): string {
  if (c.status === 'applied') return `${formatNumber(c.rows)} row${c.rows === 1 ? '' : 's'} would be removed`;
  if (c.status === 'kept') return 'kept forever';
  return `${c.status}${c.reason ? `: ${c.reason}` : ''}`;
}

/** The lifecycle dry run (`GET /lifecycle/dry-run`): per retention contract, its window and what a run would remove now; nothing is removed. */
export function Lifecycle() {
  const run = useAnswer<DryRun>('/lifecycle/dry-run');
  const report = run.data;
  return (
    <section class="ops">
      <header class="screen-head">
        <h1>Lifecycle</h1>
        <div class="actions"><button type="button" onClick={run.reload}>Run the dry run again</button></div>
      </header>
      <p>What each retention contract would remove if the daily run ran now. A dry run counts and removes nothing.</p>
      <ErrorNotice error={run.error} />
      {report ? <p class="muted" id="dry-run-at">Counted {formatTime(report.ranAt)} in environment {report.environmentId}.</p> : null}
      {report && report.contracts.length === 0 ? <p class="empty">No retention contract is declared.</p> : null}
      {report && report.contracts.length > 0 ? (
        <Scroll label="Retention contracts">
          <table id="contracts">
            <caption class="visually-hidden">Retention contracts</caption>
            <thead><tr><th scope="col">Contract</th><th scope="col">Plugin</th><th scope="col">Table</th><th scope="col">Keeps</th><th scope="col">Older than</th><th scope="col">Now</th></tr></thead>
            <tbody>
              {report.contracts.map((c) => (
                <tr key={`${c.name} ${c.object}`} data-contract={c.name} data-object={c.object} data-rows={c.rows}>
                  <td>{c.name}</td>
                  <td>{c.plugin}</td>
                  <td><code>{c.object}</code></td>
                  <td>{c.keepDays === 0 ? 'forever' : `${c.keepDays} days`}{c.overridden ? ' (override)' : ''}</td>
                  <td>{formatTime(c.cutoff)}</td>
                  <td class="wrap">{outcome(c)}{c.more ? ' (more than one run removes)' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}
    </section>
  );
}
