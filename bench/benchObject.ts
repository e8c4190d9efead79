import { fileURLToPath } from 'node:url';
import { seededRandom } from '../test/harness/seededRandom.ts';

/** The object every load scenario reads and writes (bench/app/objects/bench_item.json). */
export const BENCH_OBJECT = 'bench_item';
export const BENCH_APP_DIR = fileURLToPath(new URL('./app', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export const STATUSES = ['open', 'active', 'closed', 'archived'] as const;
const TAGS = ['red', 'green', 'blue', 'black'];

/** Deterministic pseudo-random numbers (mulberry32), so every run seeds the same data. */
export const randomSource = seededRandom;

/** The API values of the i-th seeded record (no system fields). */
export function benchValues(i: number, random: () => number): Record<string, unknown> {
  const day = 1 + Math.floor(random() * 28);
  return {
    name: `item-${String(i).padStart(6, '0')}`,
    status: STATUSES[i % STATUSES.length],
    amount: Math.round(random() * 10_000_000) / 100,
    score: Math.round(random() * 1000) / 10,
    quantity: Math.floor(random() * 500),
    counter: 0,
    active: random() < 0.8,
    due_date: `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    email: `user${i}@example.com`,
    tags: TAGS.filter(() => random() < 0.3),
    notes: `Seeded record ${i}: a short note so rows have a realistic width.`,
  };
}

/** The body a create request sends. */
export function createBody(n: number): Record<string, unknown> {
  return {
    name: `created-${n}`,
    status: 'open',
    amount: 1234.5,
    score: 12.5,
    quantity: 3,
    active: true,
    due_date: '2025-06-30',
    email: `created${n}@example.com`,
    tags: ['red'],
    notes: 'Created under load.',
  };
}
