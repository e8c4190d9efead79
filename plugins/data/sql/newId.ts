import { v7 } from 'uuid';

/** A new record id: uuid v7, so ids sort in creation order and make a stable keyset tie-breaker. */
export function newId(): string {
  return v7();
}
