import fc from 'fast-check';
import { HttpResult } from './http';
import { ErrorShape, assertNoServerError } from './shapes';

/** Cases per endpoint: at least 1,000 in CI (CI=true), fewer locally. FUZZ_RUNS overrides both. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.CI === 'true' ? 1_000 : 200));

/** Generous: the CI mode sends thousands of requests per endpoint on a 2-core machine. */
export const FUZZ_TIMEOUT_MS = 600_000;

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uffff',
  '\ud800',
  '\u202e\u0041',
  '𝕏😀👩‍👩‍👧',
  'Ёжик в тумане',
  "'; DROP TABLE card_issue_requests; --",
  "' OR '1'='1",
  '../../etc/passwd',
  '..%2f..%2f',
  '%00',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'null',
  'undefined',
  'NaN',
  '1e309',
  '-0',
  '__proto__',
  'constructor',
  '01-01-0000',
  '31-02-2000',
  '29-02-2100',
  '99-99-9999',
  '2026-11-23',
  '79161234567',
  'X00000',
  'RCARDB23112026000001',
];

const LIMIT_NUMBERS = [
  0,
  -1,
  1,
  0.5,
  -0.0001,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 31,
  2 ** 32,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e21,
  79161234567,
  4510,
  123456,
];

/** Strings from a few bytes up to well past every column limit (and sometimes past 1 MiB). */
const hugeString = fc
  .tuple(fc.integer({ min: 151, max: 400_000 }), fc.constantFrom('A', 'Я', '😀', '9', ' '))
  .map(([n, unit]) => unit.repeat(n));

export const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...LIMIT_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(...SPECIAL_STRINGS),
  hugeString,
);

/** Object keys, including the reserved "constructor" and "__proto__". */
const key = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(...SPECIAL_STRINGS.slice(0, 23)),
);

/** Any JSON value: scalars, arrays and objects nested a few levels deep. */
export const garbage: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

type Json = Record<string, unknown>;

/** Every path in a JSON value, objects and arrays included, leaves included. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  }
  return out;
}

interface Mutation {
  at: number;
  kind: 'replace' | 'delete' | 'extra' | 'wrap';
  value: unknown;
  key: string;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'replace', 'delete', 'extra', 'wrap'),
  value: garbage,
  key: fc.oneof(
    fc.string({ minLength: 1, maxLength: 12 }),
    fc.constantFrom('id', 'status', 'requestId', '__proto__', 'constructor'),
  ),
});

function applyMutation(body: unknown, m: Mutation): unknown {
  const paths = pathsOf(body);
  const path = paths[m.at % paths.length];
  if (path.length === 0) {
    if (m.kind === 'replace') return m.value;
    if (m.kind === 'wrap') return [body];
    if (m.kind === 'delete') return {};
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { [m.key]: m.value };
  }
  const root = structuredClone(body);
  let parent: unknown = root;
  for (const segment of path.slice(0, -1)) parent = (parent as Json)[segment as string];
  const last = path[path.length - 1];
  const holder = (path.length ? parent : root) as Json;
  const target = path.length ? holder[last as string] : root;
  switch (m.kind) {
    case 'replace':
      holder[last as string] = m.value;
      break;
    case 'delete':
      if (Array.isArray(holder)) holder.splice(last as number, 1);
      else delete holder[last as string];
      break;
    case 'extra':
      if (target && typeof target === 'object' && !Array.isArray(target)) {
        // defineProperty: a "__proto__" key becomes an own property sent on the wire.
        Object.defineProperty(target, m.key, {
          value: m.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else holder[last as string] = { [m.key]: m.value };
      break;
    case 'wrap':
      holder[last as string] = [target];
      break;
  }
  return root;
}

/**
 * Bodies for one endpoint: mostly one to three mutations of a valid body (wrong types, missing
 * and extra fields, huge and odd strings, numbers at limits, nulls, nested garbage), and some
 * bodies that are garbage from the root.
 */
export function bodies(valid: () => unknown): fc.Arbitrary<unknown> {
  return fc.oneof(
    {
      arbitrary: fc
        .array(mutation, { minLength: 1, maxLength: 3 })
        .map((ms) => ms.reduce(applyMutation, valid())),
      weight: 6,
    },
    { arbitrary: garbage, weight: 2 },
    {
      arbitrary: fc
        .dictionary(key, garbage, { minKeys: 1, maxKeys: 3 })
        .map((extra) => ({ ...(valid() as Json), ...extra })),
      weight: 1,
    },
    { arbitrary: fc.constant(null).map(() => valid()), weight: 1 },
  );
}

export interface FuzzTarget {
  send(body: unknown): Promise<HttpResult>;
  valid: () => unknown;
  shape: ErrorShape;
  /** A snapshot of everything the endpoint may write; equal before and after every 4xx. */
  state(): Promise<string>;
}

export interface FuzzStats {
  statuses: Record<number, number>;
}

/**
 * The properties of every write endpoint: never a 5xx, every 4xx in the service's error
 * shape, and nothing stored when the answer is a 4xx. Requests go one after another.
 */
export async function fuzzEndpoint(target: FuzzTarget, runs = FUZZ_RUNS): Promise<FuzzStats> {
  const stats: FuzzStats = { statuses: {} };
  await fc.assert(
    fc.asyncProperty(bodies(target.valid), async (body) => {
      const before = await target.state();
      const res = await target.send(body);
      stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
      assertNoServerError(res, target.shape, body);
      if (res.status >= 400) {
        const after = await target.state();
        if (after !== before) {
          throw new Error(
            `a ${res.status} changed stored data\nbefore ${before}\nafter  ${after}\n${res.text.slice(0, 300)}`,
          );
        }
      }
    }),
    { numRuns: runs, endOnFailure: process.env.FUZZ_SHRINK !== 'true' },
  );
  return stats;
}
