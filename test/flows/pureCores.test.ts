/** The http step's allow-list matching. */
import t from 'tap';
import { parseAllowEntry, refuseUrl } from '../../plugins/flows/httpAllow.ts';

t.test('a URL is allowed on scheme, host, port and path prefix only', async (t) => {
  const allow = ['https://api.example.com/v1/', 'http://127.0.0.1:8080', 'https://hooks.example.com/in'].map(parseAllowEntry);
  const cases: Array<[string, boolean]> = [
    ['https://api.example.com/v1/orders', true],
    ['https://api.example.com/v1/', true],
    ['https://api.example.com/v2/orders', false],
    ['https://api.example.com/v1x', false],
    ['http://api.example.com/v1/orders', false],
    ['https://api.example.com.evil.test/v1/orders', false],
    ['https://api.example.com:444/v1/orders', false],
    ['http://127.0.0.1:8080/anything', true],
    ['http://127.0.0.1:8081/anything', false],
    ['https://hooks.example.com/in', true],
    ['https://hooks.example.com/in/deep', true],
    ['https://hooks.example.com/inside', false],
    ['https://user:pw@api.example.com/v1/x', false],
    ['ftp://api.example.com/v1/x', false],
    ['not a url', false],
  ];
  for (const [url, ok] of cases) t.equal(refuseUrl(url, allow) === null, ok, url);
  t.match(refuseUrl('https://api.example.com/v1/x', []), /allow-list .* is empty/);
  t.throws(() => parseAllowEntry('ftp://x.test/'), /http or https/);
  t.throws(() => parseAllowEntry('https://u:p@x.test/'), /credentials/);
});
