import { RequestValidationError } from '@bank/shared/errors';
import { TextSafetyPipe, findUnsafeText } from './text-safety.pipe';

describe('findUnsafeText', () => {
  it.each([
    ['a NUL character', 'a\u0000b'],
    ['a lone high surrogate', 'x\ud800'],
    ['a lone low surrogate', '\udc00x'],
    ['swapped surrogates', '\udc00\ud800'],
  ])('finds %s with its path', (_name, text) => {
    expect(findUnsafeText({ a: { b: [1, text] } }, '')).toEqual([
      { path: 'a.b[1]', message: expect.any(String) },
    ]);
  });

  it.each([
    ['plain text', 'Иван Petrov'],
    ['a surrogate pair (emoji)', 'card 💳'],
    ['empty', ''],
  ])('accepts %s', (_name, text) => {
    expect(findUnsafeText({ a: text }, '')).toEqual([]);
  });

  it.each([
    'constructor',
    '__proto__',
    'prototype',
    'toString',
    'valueOf',
    'hasOwnProperty',
    'isPrototypeOf',
    'propertyIsEnumerable',
    'toLocaleString',
    '__defineGetter__',
    '__defineSetter__',
    '__lookupGetter__',
    '__lookupSetter__',
  ])('refuses the reserved key %s as an unknown field', (key) => {
    const body = JSON.parse(`{"request": {"extra": {"${key}": "x"}}}`) as unknown;
    expect(findUnsafeText(body, '')).toEqual([
      { path: `request.extra.${key}`, message: `property ${key} should not exist` },
    ]);
  });

  it('refuses nesting past the limit without overflowing the stack', () => {
    const deep = JSON.parse('{"a":'.repeat(5000) + '1' + '}'.repeat(5000)) as unknown;
    const errors = findUnsafeText(deep, '');
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(/nested deeper than 32/);
    const atLimit = JSON.parse('{"a":'.repeat(32) + '1' + '}'.repeat(32)) as unknown;
    expect(findUnsafeText(atLimit, '')).toEqual([]);
  });

  it('checks keys too', () => {
    expect(findUnsafeText({ 'a\u0000': 1 }, '')).toHaveLength(1);
  });
});

describe('TextSafetyPipe', () => {
  const pipe = new TextSafetyPipe();

  it('names a path parameter by its name', () => {
    expect(() => pipe.transform('RCARDB\u0000', { type: 'param', data: 'id' })).toThrow(
      RequestValidationError,
    );
    try {
      pipe.transform('RCARDB\u0000', { type: 'param', data: 'id' });
    } catch (error) {
      expect((error as RequestValidationError).fieldErrors).toEqual([
        { path: 'id', message: expect.any(String) },
      ]);
    }
  });

  it('passes safe values through unchanged', () => {
    const body = { request: { cardOwner: 'X1A2B3' } };
    expect(pipe.transform(body, { type: 'body' })).toBe(body);
  });
});
