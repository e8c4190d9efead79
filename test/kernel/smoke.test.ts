import t from 'tap';
import { PROTOCOL_VERSION } from '../../kernel/index.ts';
t.equal(PROTOCOL_VERSION, '16.0.0');
