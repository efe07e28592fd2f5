import { canonicalJson, hashBody } from './request-hash';

describe('canonicalJson', () => {
  it('sorts object keys, so key order does not matter', () => {
    expect(canonicalJson({ b: 1, a: 2, c: 3 })).toBe('{"a":2,"b":1,"c":3}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });

  it('sorts keys at every level, inside arrays too', () => {
    expect(canonicalJson({ z: { y: 1, x: [{ q: 1, p: 2 }] }, a: null })).toBe(
      '{"a":null,"z":{"x":[{"p":2,"q":1}],"y":1}}',
    );
  });

  it('drops undefined members but keeps null ones', () => {
    expect(canonicalJson({ a: undefined, b: null, c: 1 })).toBe('{"b":null,"c":1}');
  });

  it('keeps array order', () => {
    expect(canonicalJson([2, 1, 3])).toBe('[2,1,3]');
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });

  it('writes scalars as JSON', () => {
    expect(canonicalJson('x"y')).toBe('"x\\"y"');
    expect(canonicalJson(12.5)).toBe('12.5');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson({ 'a"b': 1 })).toBe('{"a\\"b":1}');
  });
});

describe('hashBody', () => {
  const body = {
    request: { cardOwner: 'X1A2B3', formFactor: 'VIRTUAL', cardHolder: { nameless: true } },
  };

  it('is the sha256 hex of the canonical JSON', () => {
    expect(hashBody({ a: 1 })).toBe(
      '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    );
  });

  it('is equal for bodies that differ only in key order or undefined members', () => {
    const reordered = {
      request: {
        cardHolder: { nameless: true },
        options: undefined,
        formFactor: 'VIRTUAL',
        cardOwner: 'X1A2B3',
      },
    };
    expect(hashBody(reordered)).toBe(hashBody(body));
  });

  it('differs for a different nested value', () => {
    expect(hashBody({ request: { ...body.request, cardHolder: { nameless: false } } })).not.toBe(
      hashBody(body),
    );
  });
});
