/** request.log: the pino child with the request's id, made only when something is logged. */
import pino from 'pino';
import t from 'tap';
import { RequestLogger, requestLoggerFactory } from '../../plugins/http/requestLogger.ts';

function parentLogger(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  let children = 0;
  const parent = pino({ level, base: undefined, onChild: () => void (children += 1) }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { parent, lines, children: () => children };
}

t.test('no child logger until something is logged; then one, with the bindings', async (t) => {
  const { parent, lines, children } = parentLogger();
  const log = requestLoggerFactory(parent, { reqId: 'r-1' }, {});
  t.ok(log instanceof RequestLogger);
  t.equal(log.level, 'info', 'the level is the parent\'s');
  t.equal(children(), 0, 'making the request logger makes no pino child');
  log.debug('below the level');
  t.equal(lines.length, 0);
  log.info({ n: 1 }, 'first');
  log.error('second');
  t.equal(children(), 1, 'one child for the request, made on first use');
  t.same(lines.map((l) => [l.reqId, l.msg, l.n]), [['r-1', 'first', 1], ['r-1', 'second', undefined]]);
  t.same(lines.map((l) => l.level), [30, 50]);
});

t.test('a child of the request logger carries both bindings; a level set sticks', async (t) => {
  const { parent, lines } = parentLogger();
  const log = requestLoggerFactory(parent, { reqId: 'r-2' }, {});
  log.child({ part: 'x' }).warn('from the child');
  t.same([lines[0]?.reqId, lines[0]?.part, lines[0]?.msg], ['r-2', 'x', 'from the child']);
  log.level = 'error';
  t.equal(log.level, 'error');
  log.warn('now below the level');
  t.equal(lines.length, 1);
  t.equal(parent.level, 'info', 'the parent keeps its level');
});

t.test('a route log level given by fastify is the level before and after the child is made', async (t) => {
  const { parent, lines } = parentLogger('info');
  const log = requestLoggerFactory(parent, { reqId: 'r-3' }, { level: 'warn' });
  t.equal(log.level, 'warn');
  log.info('below the route level');
  t.equal(lines.length, 0);
  log.warn('at the route level');
  t.equal(log.level, 'warn');
  t.same(lines.map((l) => l.msg), ['at the route level']);
});
