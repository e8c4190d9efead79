import { SYSTEM_FIELDS } from './types.ts';
import { nameProblem } from './names.ts';
import type { MetadataProblem } from './metadataError.ts';
import { unenforcedKeyProblems } from './unenforcedKeys.ts';

type Raw = Record<string, unknown>;

const NAME_FIELD_TYPES = new Set(['text', 'email', 'phone', 'url', 'autonumber']);
const NOT_INDEXABLE = new Set(['formula', 'json', 'multiselect']);

const describeType = (type: unknown): string => `${/^[aeiou]/.test(String(type)) ? 'an' : 'a'} ${String(type)}`;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Rules that span keys of one object declaration. Reads the raw input defensively so that it
 * reports alongside the schema's own errors instead of after them.
 */
export function checkObjectSemantics(input: unknown): MetadataProblem[] {
  if (!isObject(input)) return [];
  const problems: MetadataProblem[] = [];
  const add = (path: string, reason: string): void => void problems.push({ path, reason });

  if (typeof input['name'] === 'string') {
    const problem = nameProblem(input['name']);
    if (problem) add('name', problem);
  }

  const fields = isObject(input['fields']) ? input['fields'] : {};
  const names = Object.keys(fields);
  if (isObject(input['fields']) && names.length === 0) add('fields', 'declare at least one field');
  for (const name of names) checkField(name, fields[name], add);

  const owner = input['owner'] !== false;
  const columns = new Set<string>([...names, ...SYSTEM_FIELDS.filter((f) => owner || f !== 'owner_id')]);
  const typeOf = (name: string): unknown => (isObject(fields[name]) ? fields[name]['type'] : undefined);

  const nameField = input['nameField'];
  if (typeof nameField === 'string') {
    if (!(nameField in fields)) add('nameField', `'${nameField}' is not a declared field; declared: ${names.join(', ')}`);
    else if (!NAME_FIELD_TYPES.has(String(typeOf(nameField)))) add('nameField', `'${nameField}' is ${describeType(typeOf(nameField))} field; the name field must be one of ${[...NAME_FIELD_TYPES].join(', ')}`);
  }

  if (Array.isArray(input['indexes'])) {
    input['indexes'].forEach((index, i) => {
      if (!isObject(index) || !Array.isArray(index['fields'])) return;
      index['fields'].forEach((field, j) => {
        if (typeof field !== 'string') return;
        if (!columns.has(field)) add(`indexes[${i}].fields[${j}]`, `'${field}' is not a field of this object`);
        else if (NOT_INDEXABLE.has(String(typeOf(field)))) add(`indexes[${i}].fields[${j}]`, `'${field}' is ${describeType(typeOf(field))} field, which cannot be indexed`);
      });
    });
  }

  if (Array.isArray(input['validationRules'])) {
    const seen = new Set<string>();
    input['validationRules'].forEach((rule, i) => {
      if (!isObject(rule)) return;
      if (typeof rule['name'] === 'string') {
        const problem = nameProblem(rule['name']);
        if (problem) add(`validationRules[${i}].name`, problem);
        if (seen.has(rule['name'])) add(`validationRules[${i}].name`, `rule '${rule['name']}' is declared twice`);
        seen.add(rule['name']);
      }
      if (typeof rule['field'] === 'string' && !(rule['field'] in fields)) {
        add(`validationRules[${i}].field`, `'${rule['field']}' is not a declared field`);
      }
    });
  }

  if (Array.isArray(input['apiMethods'])) {
    const methods = input['apiMethods'];
    methods.forEach((m, i) => {
      if (methods.indexOf(m) !== i) add(`apiMethods[${i}]`, `'${String(m)}' is listed twice`);
    });
  }

  const search = input['search'];
  if (isObject(search) && isObject(search['weights'])) {
    for (const name of Object.keys(search['weights'])) {
      const at = `search.weights.${name}`;
      if (!(name in fields)) add(at, `'${name}' is not a declared field; declared: ${names.join(', ')}`);
      else if (!isObject(fields[name]) || fields[name]['searchable'] !== true) add(at, `'${name}' is not searchable; set "searchable": true on the field or remove its weight`);
    }
  }

  if (input['owner'] === false && input['sharingModel'] === 'private') {
    add('sharingModel', "an object without an owner (owner: false) cannot be private: nobody owns its records; use 'public_read' or 'public_read_write'");
  }
  problems.push(...unenforcedKeyProblems(input));
  return problems;
}

function checkField(name: string, field: unknown, add: (path: string, reason: string) => void): void {
  const problem = nameProblem(name);
  if (problem) add(`fields.${name}`, `field name ${problem}`);
  if ((SYSTEM_FIELDS as readonly string[]).includes(name)) {
    add(`fields.${name}`, `'${name}' is a system field present on every object (${SYSTEM_FIELDS.join(', ')}); choose another name`);
  }
  if (!isObject(field)) return;
  const at = `fields.${name}`;

  if (typeof field['min'] === 'number' && typeof field['max'] === 'number' && field['min'] > field['max']) {
    add(`${at}.min`, `min (${field['min']}) is greater than max (${field['max']})`);
  }
  if (typeof field['default'] === 'number') {
    if (typeof field['min'] === 'number' && field['default'] < field['min']) add(`${at}.default`, `default ${field['default']} is below min ${field['min']}`);
    if (typeof field['max'] === 'number' && field['default'] > field['max']) add(`${at}.default`, `default ${field['default']} is above max ${field['max']}`);
  }
  if (field['type'] === 'lookup' && typeof field['reference'] === 'string') {
    const refProblem = nameProblem(field['reference']);
    if (refProblem) add(`${at}.reference`, `object name ${refProblem}`);
  }
  if (Array.isArray(field['options'])) {
    const values = field['options'].map((o) => (isObject(o) ? o['value'] : o)).filter((v): v is string => typeof v === 'string');
    values.forEach((value, i) => {
      if (values.indexOf(value) !== i) add(`${at}.options[${i}]`, `option '${value}' is listed twice`);
    });
    const defaults = Array.isArray(field['default']) ? field['default'] : field['default'] === undefined ? [] : [field['default']];
    for (const value of defaults) {
      if (typeof value === 'string' && !values.includes(value)) add(`${at}.default`, `default '${value}' is not one of the options (${values.join(', ')})`);
    }
  }
}
