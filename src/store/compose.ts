/**
 * Builds a store from its parts: the flat `Store` interface the core calls is the union of the
 * per-aggregate adapters (accounts, usage, jobs, …), each a small class of its own. Every public
 * method of each part is bound onto one object; two parts that name the same method are a bug,
 * reported at start-up rather than one silently hiding the other.
 */

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Methods named here stay with their part (helpers a part keeps for itself are `#private`). */
const NOT_EXPOSED = new Set(["constructor"]);

export function composeStore<Base extends object, Parts extends object[]>(base: Base, ...parts: Parts): Base & UnionToIntersection<Parts[number]> {
  const store = base as Record<string, unknown>;
  for (const part of parts) {
    for (let proto = Object.getPrototypeOf(part); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const name of Object.getOwnPropertyNames(proto)) {
        const member = Object.getOwnPropertyDescriptor(proto, name)!;
        if (NOT_EXPOSED.has(name) || typeof member.value !== "function") continue;
        if (name in store) throw new Error(`store parts both define ${name}()`);
        store[name] = (member.value as (...args: unknown[]) => unknown).bind(part);
      }
    }
  }
  return store as Base & UnionToIntersection<Parts[number]>;
}
