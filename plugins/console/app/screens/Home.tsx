import { defaultViews, views } from '../catalog.ts';
import { href } from '../route.ts';
import { session } from '../session.ts';

/** The landing screen: the objects the user may read, each opening its default view. */
export function Home() {
  const user = session.value.status === 'signedIn' ? session.value.user : null;
  const objects = defaultViews(views.value ?? []).filter((v) => !v.system);
  return (
    <section class="home">
      <h1>Welcome{user ? `, ${user.name}` : ''}</h1>
      <p>Choose what to work on.</p>
      <ul class="tiles">
        {objects.map((v) => (
          <li key={v.object}><a class="tile" href={href(`/views/${v.name}`)}>{v.pluralLabel}</a></li>
        ))}
      </ul>
    </section>
  );
}
