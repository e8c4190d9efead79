import type { AdminProps } from '../components/AdminLoader.tsx';
import { Assignments } from './Assignments.tsx';
import { ImportUsers } from './ImportUsers.tsx';
import { PermissionSetEditor } from './PermissionSetEditor.tsx';
import { PermissionSets } from './PermissionSets.tsx';
import { Positions } from './Positions.tsx';
import { SharingRules } from './SharingRules.tsx';
import { UserPage } from './UserPage.tsx';
import { Users } from './Users.tsx';

/** The administration screens, by the path below `/admin` (loaded on demand: AdminLoader). */
export function AdminScreen({ parts, query }: AdminProps) {
  const [screen, id] = parts;
  if (screen === 'users' && id) return <UserPage id={id} />;
  if (screen === 'users') return <Users />;
  if (screen === 'import-users') return <ImportUsers />;
  if (screen === 'permission-sets' && id) return <PermissionSetEditor id={id} />;
  if (screen === 'permission-sets') return <PermissionSets />;
  if (screen === 'positions') return <Positions />;
  if (screen === 'sharing-rules') return <SharingRules />;
  if (screen === 'assignments') return <Assignments user={query.get('user')} />;
  return <section><h1>Not found</h1><p>There is no screen at this address.</p></section>;
}
