import { api } from '../api.ts';
import type { FieldDoc } from '../catalog.ts';

/** An object as the permission editors list it: its names, whether the engine owns it, its declared fields in order. */
export interface ObjectInfo {
  name: string;
  label: string;
  system: boolean;
  fields: Array<{ name: string; label: string; type: string }>;
}

let loaded: Promise<ObjectInfo[]> | null = null;

/** Every object of the environment (`GET /meta/object`), read once per page load. */
export function loadObjects(): Promise<ObjectInfo[]> {
  loaded ??= api<{ items: Array<{ name: string; label?: string; system?: boolean; fields?: Record<string, FieldDoc> }> }>('/meta/object').then(
    (answer) => answer.items
      .map((o) => ({ name: o.name, label: o.label ?? o.name, system: o.system === true, fields: Object.entries(o.fields ?? {}).map(([name, f]) => ({ name, label: f.label ?? name, type: f.type })) }))
      .sort((a, b) => Number(a.system) - Number(b.system) || a.label.localeCompare(b.label)),
  );
  loaded.catch(() => { loaded = null; });
  return loaded;
}
