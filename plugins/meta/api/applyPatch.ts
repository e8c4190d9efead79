import type { FieldPatch, ObjectPatch } from '../../../metadata/types.ts';
import type { FieldDoc, ObjectDoc } from './describeItems.ts';

const isEmpty = (patch: ObjectPatch) => !patch.labels && !patch.fields && !patch.views;

/** Two field patches, the later one winning key by key (option labels merged by value). */
export function mergeFieldPatch(a: FieldPatch | undefined, b: FieldPatch | undefined): FieldPatch {
  const merged: FieldPatch = { ...a, ...b };
  if (a?.options || b?.options) merged.options = { ...a?.options, ...b?.options };
  return merged;
}

/** Patches in order of precedence (later wins), as one patch; null when there is none. */
export function mergePatches(patches: readonly ObjectPatch[]): ObjectPatch | null {
  const merged: ObjectPatch = {};
  for (const patch of patches) {
    if (patch.labels) merged.labels = { ...merged.labels, ...patch.labels };
    for (const [field, fieldPatch] of Object.entries(patch.fields ?? {})) {
      merged.fields = { ...merged.fields, [field]: mergeFieldPatch(merged.fields?.[field], fieldPatch) };
    }
    if (patch.views) merged.views = { ...merged.views, ...patch.views };
  }
  return isEmpty(merged) ? null : merged;
}

export function applyFieldPatch(field: FieldDoc, patch: FieldPatch | undefined): FieldDoc {
  if (!patch) return field;
  const out: FieldDoc = { ...field };
  if (patch.label !== undefined) out.label = patch.label;
  if (patch.help !== undefined) out.help = patch.help;
  const labels = patch.options;
  if (labels && field.options) out.options = field.options.map((o) => ({ value: o.value, label: labels[o.value] ?? o.label }));
  return out;
}

/** The object as it is seen after a patch: texts replaced, views added. Never a field more or less. */
export function applyObjectPatch(object: ObjectDoc, patch: ObjectPatch | null): ObjectDoc {
  if (!patch) return object;
  const out: ObjectDoc = { ...object, ...patch.labels, fields: { ...object.fields }, views: { ...object.views, ...patch.views } };
  for (const [name, fieldPatch] of Object.entries(patch.fields ?? {})) {
    const field = out.fields[name];
    // A field dropped from the declaration leaves its stale patch without effect.
    if (field) out.fields[name] = applyFieldPatch(field, fieldPatch);
  }
  return out;
}
