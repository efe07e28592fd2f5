import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'tools/scripts/check-commits.mjs');

/** checkMessage of the script for each message, in one Node.js process. */
function problemsOf(messages: string[]): string[][] {
  const program =
    `import { checkMessage } from ${JSON.stringify(SCRIPT)};` +
    'let input = ""; process.stdin.on("data", (d) => (input += d));' +
    'process.stdin.on("end", () => console.log(JSON.stringify(JSON.parse(input).map(checkMessage))));';
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', program], {
    input: JSON.stringify(messages),
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[][];
}

const WHY = '\n\nThe reason, in a sentence or two.\n';

describe('commit message rules (tools/scripts/check-commits.mjs)', () => {
  it('passes Conventional Commits headers of at most 72 characters', () => {
    const good = [
      'docs: say what the services do',
      'docs(api): the card-issue contract in the repository',
      `fix(card-issue): answer 503 when the user service is down${WHY}`,
      `feat(openapi)!: semantic versions in step with the gate${WHY}\nBREAKING CHANGE: ...\n`,
      'refactor(shared/config): one class per service',
      'test(nx-tools): no tracked file names a path outside the repository',
      'chore(deps): update jest',
      'build(deps-dev): add standardwebhooks',
      'ci: check commit messages',
      'perf(bench): fewer rounds',
      'style: prettier',
      'revert: feat(x): something',
      `${'docs: '}${'x'.repeat(66)}`, // 72 characters
      `fix: a body after the trailer-free blank line${WHY}Signed-off-by: A <a@example.invalid>\n`,
    ];
    expect(problemsOf(good)).toEqual(good.map(() => []));
  });

  it.each([
    ['no type', 'Update the README', /Conventional Commits/],
    ['an unknown type', 'feature(api): add a thing', /unknown type "feature"/],
    ['a capitalised type', 'Docs: the README', /Conventional Commits/],
    ['no space after the colon', 'docs:the README', /Conventional Commits/],
    ['an empty subject', 'docs: ', /not be empty/],
    ['an upper-case scope', 'docs(README): links', /scope "README"/],
    ['a scope with a space', 'docs(card issue): links', /Conventional Commits/],
    ['a header of 73 characters', `docs: ${'x'.repeat(67)}`, /73 characters; at most 72/],
    ['a feat without a body', 'feat(api): add a thing', /feat commit needs a body/],
    ['a fix without a body', 'fix(api): mend a thing\n', /fix commit needs a body/],
    [
      'a fix whose only body is a trailer',
      'fix: x\n\nSigned-off-by: A <a@example.invalid>',
      /fix commit needs a body/,
    ],
    ['no blank line before the body', 'docs: x\nthe body', /second line must be blank/],
  ])('fails %s', (_case, message, expected) => {
    const [problems] = problemsOf([message]);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(expected)]));
  });
});

describe('check-commits.mjs over a range of commits', () => {
  let repo: string;
  let base: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: repo,
      encoding: 'utf8',
    }).trim();
  const commit = (message: string) => git('commit', '-q', '--allow-empty', '-m', message);
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [SCRIPT, ...args], { cwd: repo, encoding: 'utf8' });

  beforeAll(() => {
    repo = mkdtempSync(path.join(tmpdir(), 'check-commits-'));
    git('init', '-q', '-b', 'main');
    commit('Old history, never judged');
    base = git('rev-parse', 'HEAD');
    commit('docs: a good one');
    git('checkout', '-q', '-b', 'topic');
    commit(`fix(api): a good fix${WHY}`);
    git('checkout', '-q', 'main');
    commit('docs: another good one');
    git('merge', '-q', '--no-ff', '-m', "Merge branch 'topic'", 'topic');
  });

  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('judges the commits after the base, merge commits skipped', () => {
    const result = run('--base', base);
    expect(result.stdout).toContain('3 commit(s) since');
    expect(result.stdout).toContain('0 with problems');
    expect(result.status).toBe(0);
  });

  it('fails naming each bad commit and its problems', () => {
    commit('feat: no body');
    commit('WIP');
    const result = run('--base', base);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/feat: no body\n {2}- a feat commit needs a body/);
    expect(result.stderr).toMatch(/WIP\n {2}- the first line must be/);
    expect(result.stdout).toContain('5 commit(s) since');
    expect(result.stdout).toContain('2 with problems');
  });

  it('refuses a base the clone does not have', () => {
    const result = run('--base', 'f'.repeat(40));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('is not a commit of this clone');
  });

  it('checks one message from standard input', () => {
    const ok = spawnSync(process.execPath, [SCRIPT, '--stdin'], { input: 'docs: fine\n' });
    expect(ok.status).toBe(0);
    const bad = spawnSync(process.execPath, [SCRIPT, '--stdin'], {
      input: 'fix: no why\n',
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('fix commit needs a body');
  });

  it('reads the base the repository records in .ci/commit-check-base', () => {
    const recorded = readFileSync(path.join(ROOT, '.ci/commit-check-base'), 'utf8');
    expect(recorded).toMatch(/^[0-9a-f]{40}\n$/);
    // Without --base the script reads the file of the repository it runs in; this one has none.
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('commit-check-base');
  });
});
