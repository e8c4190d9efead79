/** The methods a path serves, from the route table: the core of the 405 answer. */
import t from 'tap';
import { allowedMethods } from '../../plugins/http/allowedMethods.ts';

const allowed = allowedMethods([
  { method: 'GET', url: '/api/v1/data/:object' },
  { method: 'POST', url: '/api/v1/data/:object' },
  { method: 'POST', url: '/api/v1/data/:object/query' },
  { method: 'GET', url: '/api/v1/data/:object/:id' },
  { method: 'PATCH', url: '/api/v1/data/:object/:id' },
  { method: 'DELETE', url: '/api/v1/data/:object/:id' },
  { method: 'POST', url: '/api/v1/auth/*' },
  { method: 'GET', url: '/' },
]);

const cases: Array<[string, string[] | null]> = [
  ['/api/v1/data/account', ['GET', 'HEAD', 'POST']],
  ['/api/v1/data/account/', ['GET', 'HEAD', 'POST']],
  ['/api/v1/data/account?limit=5', ['GET', 'HEAD', 'POST']],
  ['/api/v1/data/account/42', ['DELETE', 'GET', 'HEAD', 'PATCH']],
  // A static segment and a parameter both match: every method the router would serve there.
  ['/api/v1/data/account/query', ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST']],
  ['/api/v1/auth/sign-in/email', ['POST']],
  ['/', ['GET', 'HEAD']],
  ['/api/v1/data', null],
  ['/api/v1/data//42', null],
  ['/api/v1/data/account/42/more', null],
  ['/api/v2/data/account', null],
];
for (const [path, expected] of cases) t.same(allowed(path), expected, path);
