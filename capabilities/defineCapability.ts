/**
 * A capability token is the unit an operator grants and a plugin requires. Each token lives in
 * its own file with what it means and the interface of the service behind it.
 */
export type Cardinality = 'single' | 'multi';

export interface CapabilityDefinition<Id extends string, Service> {
  readonly id: Id;
  /** `single`: exactly one enabled provider. `multi`: any number; consumers get an array. */
  readonly cardinality: Cardinality;
  readonly description: string;
  /** Type carrier only; never set at run time. */
  readonly __service?: Service;
}

export function defineCapability<Service>() {
  return <const Id extends string>(def: { id: Id; cardinality: Cardinality; description: string }): CapabilityDefinition<Id, Service> =>
    Object.freeze({ ...def });
}
