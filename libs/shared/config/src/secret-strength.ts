/** The least estimated entropy, in bits, of a production secret (e.g. X_SECRET). */
export const MIN_SECRET_BITS = 128;

/**
 * Development defaults, placeholders and the commonest passwords, lowercase: a value made
 * mostly of these (repeated, joined, with a few characters around them) is a default, however
 * long it is.
 */
export const KNOWN_DEFAULT_WORDS: readonly string[] = [
  'dev-secret',
  'dev_secret',
  'devsecret',
  'test-secret',
  'x-secret',
  'changeme',
  'change-me',
  'change_me',
  'replaceme',
  'replace-me',
  'replace_me',
  'placeholder',
  'password',
  'passw0rd',
  'p@ssw0rd',
  'secret',
  'default',
  'example',
  'qwerty',
  'letmein',
  'admin',
  '123456',
];

/** Words longest first, so that `dev-secret` is one word, not `dev-` and `secret`. */
const WORDS = [...KNOWN_DEFAULT_WORDS].sort((a, b) => b.length - a.length);

/** A repeat shorter than this is taken as chance, not as a pattern (random values have some). */
const MIN_REPEAT = 4;

/** Longer values are judged on this many characters (the estimate only grows with length). */
const MAX_JUDGED = 1024;

/**
 * The number of symbols an attacker chooses each character from: the sizes of the character
 * classes the value uses (lowercase 26, uppercase 26, digits 10, other printable ASCII 33,
 * anything else 64).
 */
function poolSize(value: string): number {
  let pool = 0;
  if (/[a-z]/.test(value)) pool += 26;
  if (/[A-Z]/.test(value)) pool += 26;
  if (/[0-9]/.test(value)) pool += 10;
  if (/[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(value)) pool += 33;
  if (/[^\x20-\x7e]/.test(value)) pool += 64;
  return pool;
}

/** The known word at `i` (case-insensitive), or undefined. */
function wordAt(lower: string, i: number): string | undefined {
  return WORDS.find((word) => lower.startsWith(word, i));
}

/** The length of the longest repeat of something earlier in the value starting at `i`. */
function repeatAt(value: string, i: number): number {
  let longest = 0;
  for (let j = 0; j < i; j++) {
    let length = 0;
    while (i + length < value.length && value[j + length] === value[i + length]) length++;
    if (length > longest) longest = length;
  }
  return longest;
}

/**
 * How many independent choices the value is made of: a character is one, and so is a whole
 * known word or a whole repeat of something earlier (of MIN_REPEAT characters or more), which
 * an attacker's guesses try as one piece (greedy, as LZ77 compression reads a text).
 */
function choices(value: string): number {
  const lower = value.toLowerCase();
  let count = 0;
  for (let i = 0; i < value.length; count++) {
    const word = wordAt(lower, i)?.length ?? 0;
    const repeat = repeatAt(value, i);
    i += Math.max(word, repeat >= MIN_REPEAT ? repeat : 1);
  }
  return count;
}

/** How many of the value's characters belong to known words (case-insensitive). */
function wordCharacters(value: string): number {
  const lower = value.toLowerCase();
  let covered = 0;
  for (let i = 0; i < value.length;) {
    const word = wordAt(lower, i)?.length ?? 0;
    covered += word;
    i += word || 1;
  }
  return covered;
}

/**
 * A conservative estimate of a secret's entropy in bits: log2 of the character pool (the
 * classes it uses) for each independent choice it is made of (each character, or a whole known
 * word or repeat). `openssl rand -base64 32` gives about 280; 32 random hexadecimal digits 165;
 * `a` x 32 under 10.
 */
export function estimatedSecretBits(value: string): number {
  const judged = value.slice(0, MAX_JUDGED);
  if (!judged) return 0;
  return Math.floor(Math.log2(poolSize(judged)) * choices(judged));
}

/** The shortest p with value[i] === value[i - p] throughout (the value's own length if none). */
function period(value: string): number {
  for (let p = 1; p < value.length; p++) {
    let periodic = true;
    for (let i = p; i < value.length && periodic; i++) periodic = value[i] === value[i - p];
    if (periodic) return p;
  }
  return value.length;
}

/**
 * The strength rules a production secret breaks, each naming the variable and the rule, never
 * the value (nor a part of it): a short pattern repeated, a value made mostly of defaults or
 * placeholders, and an estimated entropy under MIN_SECRET_BITS.
 */
export function secretStrengthProblems(name: string, value: string): string[] {
  const problems: string[] = [];
  const judged = value.slice(0, MAX_JUDGED);
  if (judged.length > 1 && period(judged) <= judged.length / 2) {
    problems.push(`${name} must not be a short pattern repeated`);
  }
  if (judged.length > 0 && wordCharacters(judged) * 2 >= judged.length) {
    problems.push(
      `${name} must not be made of default or common words (a development default, a placeholder, a common password), repeated or not`,
    );
  }
  const bits = estimatedSecretBits(value);
  if (bits < MIN_SECRET_BITS) {
    problems.push(
      `${name} must have at least ${MIN_SECRET_BITS} bits of entropy, estimated as log2 of its character pool per character with repeats and common words discounted (this one: about ${bits}); generate one, e.g. openssl rand -base64 32`,
    );
  }
  return problems;
}
