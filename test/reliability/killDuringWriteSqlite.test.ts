/** SIGKILL during a burst of multi-record writes on SQLite: see killDuringWrite.ts. */
import t from 'tap';
import { killDuringWrite } from './killDuringWrite.ts';

t.test('sqlite', (t) => killDuringWrite(t, 'sqlite'));
