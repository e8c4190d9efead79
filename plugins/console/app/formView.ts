/** What formViewOf reads of a view (`/meta/view` answers more). */
export interface FormViewCandidate {
  name: string;
  object: string;
  default: boolean;
  form?: unknown;
}

/**
 * The view whose form lays out a record page: the view the user came from (`from`, a view of the
 * same object) when it declares a form, else the object's first view that declares one, else the
 * object's default view (every field in one section). Undefined when the user may use no view of
 * the object.
 */
export function formViewOf<V extends FormViewCandidate>(list: readonly V[], object: string, from: string | null): V | undefined {
  const own = list.filter((v) => v.object === object);
  const came = from ? own.find((v) => v.name === from) : undefined;
  if (came?.form) return came;
  return own.find((v) => v.form) ?? own.find((v) => v.default) ?? own[0];
}
