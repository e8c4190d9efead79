/** 100k-record exports and a mid-stream failure over a real socket, on PostgreSQL (see exportStream.ts). */
import t from 'tap';
import { exportStreamTests } from './exportStream.ts';

await exportStreamTests(t, 'postgres');
