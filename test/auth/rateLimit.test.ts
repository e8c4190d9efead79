/** Rate limits of sign-in, password reset and verification: 429 RATE_LIMITED with Retry-After. */
import t from 'tap';
import { ADMIN, eachBackend } from './authHarness.ts';

const limits = {
  rateLimit: {
    signIn: { perIp: { max: 6, windowSeconds: 60 }, perAccount: { max: 3, windowSeconds: 120 } },
    passwordReset: { perIp: { max: 20, windowSeconds: 60 }, perAccount: { max: 2, windowSeconds: 60 } },
  },
};

t.test('rate limits', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot({ auth: limits });
    const signIn = (email: string, password: string, remoteAddress = '10.0.0.1', url = '/api/v1/auth/sign-in') =>
      rt.inject({ method: 'POST', url, remoteAddress, payload: { email, password } });

    await t.test('per account: the fourth attempt within the window is 429, even with the right password', async (t) => {
      for (let i = 0; i < 3; i++) t.equal((await signIn(ADMIN.email, 'wrong-password', `10.1.0.${i}`)).statusCode, 401, `attempt ${i + 1}`);
      const limited = await signIn(ADMIN.email, ADMIN.password, '10.1.0.9');
      t.equal(limited.statusCode, 429);
      t.match(limited.json(), { error: { code: 'RATE_LIMITED', details: { limit: 'signIn' } } });
      const retryAfter = Number(limited.headers['retry-after']);
      t.ok(retryAfter >= 1 && retryAfter <= 120, `Retry-After ${retryAfter} is within the window`);
      t.equal(limited.json().error.details.retryAfter, retryAfter, 'the body says the same');
      t.notOk(limited.headers['set-cookie'], 'no session');
      const engine = await signIn(ADMIN.email.toUpperCase(), ADMIN.password, '10.1.0.10', '/api/v1/auth/sign-in/email');
      t.equal(engine.statusCode, 429, "the engine's sign-in route shares the counter (case-insensitive account)");
    });

    await t.test('per IP: many accounts from one address', async (t) => {
      for (let i = 0; i < 6; i++) t.equal((await signIn(`someone${i}@example.com`, 'whatever-1', '10.2.0.1')).statusCode, 401);
      const limited = await signIn('someone-else@example.com', 'whatever-1', '10.2.0.1');
      t.equal(limited.statusCode, 429);
      t.ok(Number(limited.headers['retry-after']) >= 1);
      t.equal((await signIn('someone-else@example.com', 'whatever-1', '10.2.0.2')).statusCode, 401, 'another address is not limited');
    });

    await t.test('password reset requests', async (t) => {
      const ask = () => rt.inject({ method: 'POST', url: '/api/v1/auth/request-password-reset', remoteAddress: '10.3.0.1', payload: { email: 'victim@example.com' } });
      t.equal((await ask()).statusCode, 400, 'first: reaches the engine (no email service here)');
      t.equal((await ask()).statusCode, 400, 'second: too');
      const limited = await ask();
      t.equal(limited.statusCode, 429);
      t.match(limited.json(), { error: { code: 'RATE_LIMITED', details: { limit: 'passwordReset' } } });
      t.ok(limited.headers['retry-after']);
    });
  });
});

t.test('the limiter is on by default', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot();
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) {
      codes.push((await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', remoteAddress: `10.4.0.${i}`, payload: { email: 'target@example.com', password: 'guess-1' } })).statusCode);
    }
    t.same(codes, [...Array(10).fill(401), 429], 'ten attempts per account in five minutes, then 429');
  });
});
