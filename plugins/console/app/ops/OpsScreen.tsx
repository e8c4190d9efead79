import { href } from '../route.ts';
import { FlowRun } from './FlowRun.tsx';
import { FlowRuns } from './FlowRuns.tsx';
import { Health } from './Health.tsx';
import { HookDeliveries } from './HookDeliveries.tsx';
import { IndexAdvice } from './IndexAdvice.tsx';
import { Jobs } from './Jobs.tsx';
import { Lifecycle } from './Lifecycle.tsx';
import { OPS_SCREENS } from './OpsNav.tsx';
import { Plugins } from './Plugins.tsx';

/**
 * The Operations screens, below `/ops`. Each reads the public API, whose routes answer admins only:
 * anyone else sees the API's refusal.
 */
export function OpsScreen({ parts }: { parts: string[] }) {
  const [screen, ...rest] = parts;
  if (screen === 'jobs') return <Jobs />;
  if (screen === 'flows' && rest[0] && rest[1]) return <FlowRun key={rest[1]} flow={rest[0]} runId={rest[1]} />;
  if (screen === 'flows') return <FlowRuns />;
  if (screen === 'hooks') return <HookDeliveries />;
  if (screen === 'lifecycle') return <Lifecycle />;
  if (screen === 'index-advice') return <IndexAdvice />;
  if (screen === 'plugins') return <Plugins />;
  if (screen === 'health') return <Health />;
  return (
    <section class="ops">
      <h1>Operations</h1>
      <ul class="tiles">
        {OPS_SCREENS.map(([path, label]) => <li key={path}><a class="tile" href={href(`/ops/${path}`)}>{label}</a></li>)}
      </ul>
    </section>
  );
}
