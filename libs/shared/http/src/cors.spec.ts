import type { FastifyRequest } from 'fastify';
import { corsDelegator } from './cors';
import { RouteMethods } from './route-methods';

function routes(): RouteMethods {
  const table = new RouteMethods();
  table.add('POST', '/api/clients');
  table.add('GET', '/api/clients/:id');
  return table;
}

function answer(
  origins: string[],
  method: string,
  url: string,
  headers: Record<string, string>,
): unknown {
  let options: unknown;
  corsDelegator(origins, routes())(
    { method, url, headers } as unknown as FastifyRequest,
    (_, o) => {
      options = o;
    },
  );
  return options;
}

describe('corsDelegator', () => {
  const preflight = { origin: 'https://a.example', 'access-control-request-method': 'POST' };

  it('with *, answers any origin with Access-Control-Allow-Origin: *', () => {
    expect(answer(['*'], 'GET', '/api/clients/1', { origin: 'https://any.example' })).toMatchObject(
      { origin: '*' },
    );
    expect(answer(['*'], 'OPTIONS', '/api/clients', preflight)).toMatchObject({
      origin: '*',
      methods: ['POST'],
    });
  });

  it('names the origin itself when it is listed, and refuses one that is not', () => {
    expect(answer(['https://a.example'], 'GET', '/api/clients/1', preflight)).toMatchObject({
      origin: 'https://a.example',
    });
    expect(answer(['https://b.example'], 'GET', '/api/clients/1', preflight)).toEqual({
      origin: false,
    });
  });

  it('gives a request without Origin (not from a browser page) no CORS answer, even with *', () => {
    expect(answer(['*'], 'GET', '/api/clients/1', {})).toEqual({ origin: false });
  });

  it('answers a preflight with the methods of the concrete path, query string aside', () => {
    expect(answer(['*'], 'OPTIONS', '/api/clients/7?x=1', preflight)).toMatchObject({
      methods: ['GET', 'HEAD'],
    });
    expect(answer(['*'], 'OPTIONS', '/api/nothing', preflight)).toEqual({ origin: false });
  });
});
