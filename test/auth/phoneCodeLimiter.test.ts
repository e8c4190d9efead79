/** PhoneCodeLimiter with a controlled clock: cooldown, rolling-hour cap, per-IP window. */
import t from 'tap';
import { PhoneCodeLimiter } from '../../plugins/auth/phoneCodeLimiter.ts';

const limitOf = async (fn: () => Promise<void>): Promise<{ limit: string; retryAfter: number } | null> => {
  try {
    await fn();
    return null;
  } catch (error) {
    return (error as { details: { limit: string; retryAfter: number } }).details;
  }
};

t.test('cooldown and a rolling hour per number', async (t) => {
  let now = 1_000_000;
  const limiter = new PhoneCodeLimiter({ cooldownSeconds: 60, hourlyCap: 3, perIp: { max: 1000, windowSeconds: 3600 } }, () => now);
  const hit = (phone = '+4915112345678', environmentId = 'main') => limitOf(() => limiter.hit({ environmentId, ip: '10.0.0.1', phone }));
  t.equal(await hit(), null, 'first code');
  t.same(await hit(), { limit: 'phoneCode.cooldown', retryAfter: 60 });
  now += 59_500;
  t.same(await hit(), { limit: 'phoneCode.cooldown', retryAfter: 1 }, 'retryAfter rounds up');
  t.equal(await hit('+4915199999999'), null, 'another number is not held back');
  t.equal(await hit('+4915112345678', 'other'), null, 'nor the same number in another environment');
  now += 1_000;
  t.equal(await hit(), null, 'second code (t = 60.5 s)');
  now += 600_000;
  t.equal(await hit(), null, 'third code (t = 660.5 s)');
  now += 600_000;
  t.same(await hit(), { limit: 'phoneCode.hourlyCap', retryAfter: 2_340 }, 'capped until the first code is an hour old (t = 3600 s)');
  now += 2_340_000;
  t.equal(await hit(), null, 'the first code left the rolling hour (t = 3600.5 s)');
  now += 59_000;
  t.same(await hit(), { limit: 'phoneCode.cooldown', retryAfter: 1 });
  now += 1_000;
  t.equal(await hit(), null, 'the second code left the hour too (t = 3660.5 s)');
  now += 60_000;
  t.same(await hit(), { limit: 'phoneCode.hourlyCap', retryAfter: 540 }, 'the third code (t = 660.5 s) is now the oldest in the hour');
});

t.test('per-IP fixed window counts every request', async (t) => {
  let now = 0;
  const limiter = new PhoneCodeLimiter({ cooldownSeconds: 0, hourlyCap: 100, perIp: { max: 2, windowSeconds: 100 } }, () => now);
  const hit = (ip: string, phone: string) => limitOf(() => limiter.hit({ environmentId: 'main', ip, phone }));
  t.equal(await hit('10.0.0.1', '+4915100000001'), null);
  t.equal(await hit('10.0.0.1', '+4915100000002'), null);
  t.same(await hit('10.0.0.1', '+4915100000003'), { limit: 'phoneCode.perIp', retryAfter: 100 });
  t.equal(await hit('10.0.0.2', '+4915100000003'), null, 'another address');
  now += 100_000;
  t.equal(await hit('10.0.0.1', '+4915100000003'), null, 'a new window');
});
