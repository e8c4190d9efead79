import { DashboardPage } from './DashboardPage.tsx';
import { Dashboards } from './Dashboards.tsx';
import { ReportPage } from './ReportPage.tsx';
import { Reports } from './Reports.tsx';

/** Reports and dashboards, by the path (loaded on demand with the charting library: InsightsLoader). */
export function InsightsScreen({ parts }: { parts: string[] }) {
  const [screen, id] = parts;
  if (screen === 'reports' && id) return <ReportPage id={id} />;
  if (screen === 'reports') return <Reports />;
  if (screen === 'dashboards' && id) return <DashboardPage name={id} />;
  if (screen === 'dashboards') return <Dashboards />;
  return <section><h1>Not found</h1><p>There is no screen at this address.</p></section>;
}
