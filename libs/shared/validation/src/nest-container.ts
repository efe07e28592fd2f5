import { INestApplicationContext, Type } from '@nestjs/common';
import { useContainer } from 'class-validator';

/**
 * Hands class-validator the Nest container for the constraint classes that are Nest providers
 * (so they can inject, e.g., the clock) and leaves every other constraint class to its own
 * container. Only the listed classes are asked of Nest, each once: asking Nest for a class it
 * does not hold throws (a NestFactory application answers that by ending the process), and
 * building that exception with its stack trace for every built-in constraint of every
 * validation was a third of a client registration's CPU (docs/benchmarks.md).
 */
export function useNestContainerForValidation(
  context: INestApplicationContext,
  providers: Type<unknown>[],
): void {
  const resolved = new Map<unknown, unknown>();
  const provided = new Set<unknown>(providers);
  useContainer(
    {
      get: (someClass: unknown): unknown => {
        if (!provided.has(someClass)) return undefined; // class-validator's own container
        if (!resolved.has(someClass))
          resolved.set(someClass, context.get(someClass as Type<unknown>, { strict: false }));
        return resolved.get(someClass);
      },
    },
    { fallback: true },
  );
}
