/**
 * What an environment variable does, kept on the property of the environment class that
 * validates it, so the schema and its documentation cannot part: docs/configuration.md is
 * generated from these (`npm run docs:config`) and a test fails when the committed page differs.
 */
export interface VariableDescription {
  /** What the variable does, in a sentence or two. */
  effect: string;
  /** What NODE_ENV=production requires or refuses beyond the rules everywhere; absent: nothing. */
  production?: string;
  /** The default in words, where the property's initial value does not say it (computed, unset). */
  default?: string;
}

/** Descriptions by class prototype, then property; a subclass's entry wins over its base's. */
const DESCRIPTIONS = new WeakMap<object, Map<string, VariableDescription>>();

/** Describes the variable of this property (docs/configuration.md). */
export function Describe(
  effect: string,
  more: Omit<VariableDescription, 'effect'> = {},
): PropertyDecorator {
  return (prototype, property) => {
    const own = DESCRIPTIONS.get(prototype) ?? new Map<string, VariableDescription>();
    own.set(String(property), { effect, ...more });
    DESCRIPTIONS.set(prototype, own);
  };
}

/** Every described variable of an environment class, its base classes' included. */
export function describedVariables(
  cls: abstract new () => object,
): Map<string, VariableDescription> {
  const chain: object[] = [];
  for (let p: object | null = cls.prototype as object; p; p = Object.getPrototypeOf(p) as object) {
    chain.unshift(p);
  }
  const all = new Map<string, VariableDescription>();
  for (const prototype of chain) {
    for (const [name, description] of DESCRIPTIONS.get(prototype) ?? []) all.set(name, description);
  }
  return all;
}
