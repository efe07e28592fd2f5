import { INestApplicationContext } from '@nestjs/common';
import { useContainer } from 'class-validator';

/**
 * Hands class-validator the Nest container for the constraint classes that are Nest providers
 * (so they can inject, e.g., the clock) and leaves every other constraint class to its own
 * container. Each class is asked of Nest once and the answer kept: Nest answers a class it
 * does not hold by throwing UnknownElementException, and building that exception with its
 * stack trace for every built-in constraint of every validation was a third of a client
 * registration's CPU (docs/benchmarks.md).
 */
export function useNestContainerForValidation(context: INestApplicationContext): void {
  const resolved = new Map<unknown, unknown>();
  useContainer(
    {
      get: (someClass: unknown): unknown => {
        if (!resolved.has(someClass)) {
          let instance: unknown;
          try {
            instance = context.get(someClass as never);
          } catch {
            instance = undefined; // not a Nest provider: class-validator's own container
          }
          resolved.set(someClass, instance);
        }
        return resolved.get(someClass);
      },
    },
    { fallback: true },
  );
}
