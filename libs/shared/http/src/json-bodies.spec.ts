import { MAX_BODY_DEPTH, MAX_BODY_MEMBERS, withinJsonBounds } from './json-bodies';

const bytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

function withMembers(n: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('withinJsonBounds', () => {
  it.each(['null', '"text"', '7', 'true', ''])('takes a body that is no container (%p)', (text) => {
    expect(withinJsonBounds(Buffer.from(text))).toBe(true);
  });

  it(`takes ${MAX_BODY_MEMBERS} members and refuses one more`, () => {
    expect(withinJsonBounds(bytes(withMembers(MAX_BODY_MEMBERS)))).toBe(true);
    expect(withinJsonBounds(bytes(withMembers(MAX_BODY_MEMBERS + 1)))).toBe(false);
  });

  it('counts members at every level, array elements too', () => {
    // 2 members of the body, 249 of the list and 249 of the map: the bound exactly.
    const body = { list: Array.from({ length: 249 }, () => 0), map: withMembers(249) };
    expect(withinJsonBounds(bytes(body))).toBe(true);
    body.list.push(0);
    expect(withinJsonBounds(bytes(body))).toBe(false);
  });

  it('does not count commas and brackets inside strings, escaped quotes included', () => {
    const text = ',[{'.repeat(10_000);
    expect(withinJsonBounds(bytes({ text, quoted: `"${text}\\"${text}` }))).toBe(true);
  });

  it('reads UTF-8 bytes of Cyrillic text as text', () => {
    expect(withinJsonBounds(bytes({ name: 'Мария, Ивановна [{'.repeat(1_000) }))).toBe(true);
  });

  it(`takes ${MAX_BODY_DEPTH} levels of nesting and refuses one more`, () => {
    expect(withinJsonBounds(bytes(nested(MAX_BODY_DEPTH)))).toBe(true);
    expect(withinJsonBounds(bytes(nested(MAX_BODY_DEPTH + 1)))).toBe(false);
  });

  it('refuses 100,000 levels of nesting at the 17th', () => {
    expect(withinJsonBounds(Buffer.from('['.repeat(100_000)))).toBe(false);
  });
});
