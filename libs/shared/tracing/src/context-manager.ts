import { EventEmitter } from 'node:events';
import type { Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

/**
 * The standard AsyncLocalStorage context manager, except that binding an event emitter leaves it
 * as it is (functions are still bound).
 *
 * instrumentation-http binds every incoming request and its response to the request's context,
 * sampled or not, and even for the probes it ignores: the standard manager then gives each of the
 * two objects eight own methods and wraps every listener added later. That is the largest part of
 * what an unsampled request pays for tracing (the figures:
 * docs/decisions/0048-tracing-without-emitter-binding.md), and the services do not need it: Fastify runs a handler in the context its
 * request arrived in, across the body's stream callbacks (its content-type parser binds its
 * callback with an AsyncResource), and Node.js gives every promise, timer and outgoing call the
 * context it was made in. No listener of the services on a request or a response does traced work.
 *
 * context-manager.spec.ts fails, and says this class can go, once instrumentation-http stops
 * binding the emitters; http.spec.ts keeps the spans of a POST with a body under its server span.
 */
export class UnboundEmittersContextManager extends AsyncLocalStorageContextManager {
  override bind<T>(context: Context, target: T): T {
    if (target instanceof EventEmitter) return target;
    return super.bind(context, target);
  }
}
