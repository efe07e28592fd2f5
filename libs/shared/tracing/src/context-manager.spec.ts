import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContextManager, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UnboundEmittersContextManager } from './context-manager';
import { registerInMemoryTracing } from './testing';

const KEY = createContextKey('context-manager.spec');
const marked = ROOT_CONTEXT.setValue(KEY, 'marked');

describe('UnboundEmittersContextManager', () => {
  const manager = new UnboundEmittersContextManager().enable();
  afterAll(() => manager.disable());

  it('binds a function as the standard manager does: it runs in the bound context', () => {
    const bound = manager.bind(marked, () => manager.active().getValue(KEY));
    expect(manager.with(ROOT_CONTEXT, bound)).toBe('marked');
  });

  it('leaves an event emitter as it is: no own methods, listeners run in the emitting context', () => {
    const emitter = new EventEmitter();
    expect(manager.bind(marked, emitter)).toBe(emitter);
    let seen: unknown = 'not called';
    emitter.on('event', () => (seen = manager.active().getValue(KEY)));
    emitter.emit('event');
    expect(Object.getOwnPropertyNames(emitter)).not.toContain('on');
    expect(seen).toBeUndefined();
  });

  it('runs work in a context, as the standard manager does', () => {
    expect(manager.with(marked, () => manager.active().getValue(KEY))).toBe('marked');
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it("leaves a traced request's and response's emitters unbound under instrumentation-http", async () => {
    expect(await ownMethodsOfARequest()).toEqual([[], []]);
  });
});

// The upstream behaviour UnboundEmittersContextManager works around
// (docs/decisions/0048-tracing-without-emitter-binding.md). When this fails,
// instrumentation-http no longer binds every request's and response's emitters: the class can
// go, and startTracing can use the standard AsyncLocalStorageContextManager again.
describe('instrumentation-http with the standard context manager', () => {
  it("binds every request's and response's emitters, giving each own listener methods", async () => {
    expect(await ownMethodsOfARequest(new AsyncLocalStorageContextManager())).toEqual([
      LISTENER_METHODS,
      LISTENER_METHODS,
    ]);
  });
});

const LISTENER_METHODS = [
  'addListener',
  'off',
  'on',
  'once',
  'prependListener',
  'prependOnceListener',
  'removeAllListeners',
  'removeListener',
];

/** The EventEmitter methods an object holds as its own properties, sorted. */
function ownListenerMethods(emitter: EventEmitter): string[] {
  return LISTENER_METHODS.filter((name) => Object.hasOwn(emitter, name));
}

/**
 * The own listener methods of the request and the response a traced node:http server saw, with
 * `contextManager` (else startTracing's) registered.
 */
async function ownMethodsOfARequest(contextManager?: ContextManager): Promise<string[][]> {
  const tracing = registerInMemoryTracing({ http: true, contextManager });
  const own: string[][] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    own.push(ownListenerMethods(req), ownListenerMethods(res));
    res.end();
  });
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    expect((await fetch(`http://127.0.0.1:${port}/things/1`)).status).toBe(200);
    return own;
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await tracing.stop();
  }
}
