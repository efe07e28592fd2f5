import { INestApplication } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { HTTPMethod } from 'find-my-way';
import { fastifyAdapterOf } from './adapter-of';
import { frameworkErrorHandlerOf } from './error-answers';

/**
 * Options of Fastify's router that decide whether a URL matches a route; the adapter's router
 * and the RouteMethods table take the same, so the table matches the URLs the router does.
 */
export const ROUTER_OPTIONS = { maxParamLength: 200, useSemicolonDelimiter: false } as const;

/**
 * Which methods each route pattern answers, for a concrete URL. Fastify's findRoute/hasRoute
 * match patterns, not URLs, and its router is private: this is a second find-my-way router
 * filled from the onRoute hook (see installRouteMethods), consulted only for the requests no
 * route matched (405 with Allow instead of 404) and for CORS preflights.
 */
export class RouteMethods {
  private readonly router = FindMyWay(ROUTER_OPTIONS);
  private readonly methods = new Set<HTTPMethod>();

  /** Records a route. Catch-alls at the root (@fastify/cors's OPTIONS *) name no resource. */
  add(method: string | string[], url: string): void {
    if (url === '*' || url === '/*') return;
    for (const one of Array.isArray(method) ? method : [method]) {
      // HEAD is implied by GET (Fastify exposes a HEAD route for every GET one).
      for (const each of one === 'GET' ? ['GET', 'HEAD'] : [one]) {
        const verb = each as HTTPMethod;
        // A pattern registered twice (e.g. under another version constraint) is one resource.
        if (this.router.hasRoute(verb, url)) continue;
        this.router.on(verb, url, () => undefined);
        this.methods.add(verb);
      }
    }
  }

  /** The methods a URL (path and query, as received) is answered for, sorted; empty when none. */
  allowedMethods(url: string): string[] {
    const allowed: string[] = [];
    for (const method of this.methods) {
      try {
        if (this.router.find(method, url)) allowed.push(method);
      } catch {
        // A URL find-my-way cannot decode names no resource.
      }
    }
    return allowed.sort();
  }
}

/**
 * A request whose method the resource does not support (answered 405, with Allow listing the
 * ones it does), instead of 404: the resource exists.
 */
export class MethodNotAllowedError extends Error {
  readonly code = 'METHOD_NOT_ALLOWED';
  readonly statusCode = 405;

  constructor(
    readonly method: string,
    readonly allowed: string[],
  ) {
    super(`Method ${method} is not supported by this resource; it supports ${allowed.join(', ')}`);
  }
}

/** The route table of each adapter (set by installRouteMethods). */
const routeTables = new WeakMap<object, RouteMethods>();

/**
 * Fills the app's RouteMethods table from Fastify's onRoute hook (before any route is
 * registered), and answers a request no route matched, on a path some route has under another
 * method, 405 with Allow instead of Nest's 404: the resource exists (in the error shape, through
 * the service's filter).
 */
export function installRouteMethods(app: INestApplication): void {
  const adapter = fastifyAdapterOf(app);
  const routes = new RouteMethods();
  routeTables.set(adapter, routes);
  adapter.getInstance().addHook('onRoute', (route) => routes.add(route.method, route.url));
  const setNotFoundHandler = adapter.setNotFoundHandler.bind(adapter);
  adapter.setNotFoundHandler = (handler: (request: FastifyRequest, reply: FastifyReply) => void) =>
    setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
      const allowed = routes.allowedMethods(request.url);
      if (allowed.length === 0) return handler(request, reply);
      const error = new MethodNotAllowedError(request.method, allowed);
      const errorHandler = frameworkErrorHandlerOf(adapter);
      if (errorHandler) return errorHandler(error, request, reply);
      void reply
        .code(error.statusCode)
        .header('allow', allowed.join(', '))
        .send({ statusCode: error.statusCode, message: error.message });
    });
}

/** The methods each path of the app's routes supports (see RouteMethods). */
export function routeMethodsOf(app: INestApplication): RouteMethods {
  const routes = routeTables.get(app.getHttpAdapter());
  if (!routes) throw new Error('installRouteMethods has not run on this app');
  return routes;
}
