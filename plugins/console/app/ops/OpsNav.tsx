import { href } from '../route.ts';
import { currentUser, isAdmin } from '../session.ts';

/** The Operations screens, by address below `/ops`. */
export const OPS_SCREENS: ReadonlyArray<readonly [string, string]> = [
  ['jobs', 'Jobs'],
  ['flows', 'Flow runs'],
  ['hooks', 'Hook deliveries'],
  ['lifecycle', 'Lifecycle'],
  ['index-advice', 'Index advice'],
  ['plugins', 'Plugins'],
  ['health', 'Health'],
];

/** The navigation's Operations section: admins only (the API refuses everyone else anyway). */
export function OpsNav() {
  if (!isAdmin(currentUser())) return null;
  return (
    <section class="ops-nav">
      <h2>Operations</h2>
      <ul>
        {OPS_SCREENS.map(([path, label]) => <li key={path}><a href={href(`/ops/${path}`)}>{label}</a></li>)}
      </ul>
    </section>
  );
}
