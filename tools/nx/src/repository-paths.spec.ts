import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  outsideReferences,
  outsideReferencesOfRepository,
  OutsideReference,
  REPO_ROOT,
  trackedFiles,
} from './lib/outside-paths';

const TRACKED = [
  'README.md',
  'docs/api/card-issue.md',
  'k8s/monitoring/kustomization.yaml',
  'k8s/overlays/prod/kustomization.yaml',
  'libs/shared/config/src/index.ts',
];

const paths = (file: string, text: string, root = '/srv/checkout'): string[] =>
  outsideReferences(file, text, TRACKED, root).map((reference) => reference.path);

describe('no tracked file names a path outside the repository', () => {
  it("holds for every tracked file but .ci/ and this check's own examples", () => {
    const found = outsideReferencesOfRepository();
    const listing = found.map(
      ({ file, line, path: named, why }: OutsideReference) => `${file}:${line}: ${named}: ${why}`,
    );
    expect(listing).toEqual([]);
  });

  it('looks at the tracked files', () => {
    const files = trackedFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/decisions/README.md']));
    expect(files.filter((file) => file.startsWith('.ci/'))).toEqual([]);
  });
});

describe('outsideReferences', () => {
  it('finds a relative path that climbs above the root, in a link or in plain text', () => {
    expect(paths('README.md', 'The contract is [the spec](../outside/spec/card.md).')).toEqual([
      '../outside/spec/card.md',
    ]);
    expect(paths('README.md', 'The contract is `../outside/spec/`.')).toEqual(['../outside/spec/']);
    expect(paths('docs/decisions.md', 'See ../../outside/DECISIONS.md, please.')).toEqual([
      '../../outside/DECISIONS.md',
    ]);
    expect(paths('apps/card-issue/src/main.ts', "import x from '../../../../lib';")).toEqual([
      '../../../../lib',
    ]);
    expect(paths('docs/a.md', '[x](./../../other/README.md)')).toEqual(['./../../other/README.md']);
  });

  it('lets relative paths that stay inside pass', () => {
    expect(paths('docs/api/card-issue.md', '[doc](../../openapi/card-issue.json)')).toEqual([]);
    expect(paths('apps/card-issue/jest.config.js', "require('../../jest.preset')")).toEqual([]);
    expect(paths('docs/decisions.md', '[README](../README.md), ../docs/style.md')).toEqual([]);
  });

  it('leaves alone what is not a relative path: URLs, absolute paths, ranges', () => {
    expect(paths('README.md', 'https://example.com/../a and /api/../../etc/passwd')).toEqual([]);
    expect(
      paths('README.md', '`M_0001`..`M_0005`, from 1..5, `OUTBOX_RETRY_BASE_MS` .. max'),
    ).toEqual([]);
  });

  it('judges a Markdown code block by whether the path names something of the repository', () => {
    const quoting = (snippet: string) =>
      paths('docs/operations.md', ['```yaml', 'components:', `  - ${snippet}`, '```'].join('\n'));
    expect(quoting('../../monitoring')).toEqual([]); // k8s/overlays/prod -> k8s/monitoring
    expect(quoting('../../outside/spec/card.md')).toEqual(['../../outside/spec/card.md']);
    // The same in an inline code span, also one that a line of the paragraph before opened.
    const inline = 'or `cd k8s/overlays/prod && kustomize edit add\ncomponent ../../monitoring`.';
    expect(paths('docs/operations.md', inline)).toEqual([]);
    expect(paths('README.md', 'The contract is `../outside/spec/card.md`.')).toEqual([
      '../outside/spec/card.md',
    ]);
    // In prose the same path is judged from the file's own directory.
    expect(paths('docs/operations.md', 'the component ../../monitoring')).toEqual([
      '../../monitoring',
    ]);
    expect(paths('docs/operations.md', 'a `span` ends\n\nthen ../../monitoring')).toEqual([
      '../../monitoring',
    ]);
  });

  it("finds absolute paths of one machine and the checkout's own location", () => {
    expect(paths('README.md', 'Read /work/outside/STYLE.md first.')).toEqual([
      '/work/outside/STYLE.md',
    ]);
    expect(paths('docs/a.md', 'cd /home/me/bank && npm ci')).toEqual(['/home/me/bank']);
    expect(paths('docs/a.md', 'logs in /srv/checkout/tmp', '/srv/checkout')).toEqual([
      '/srv/checkout',
    ]);
    expect(paths('docs/a.md', 'the image runs /usr/bin/chromium, writes /tmp/x')).toEqual([]);
  });
});

describe('the check on a repository that breaks the rule', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'outside-paths-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(path.join(root, 'README.md'), 'Contract: [spec](../outside/spec/card.md)\n');
    writeFileSync(path.join(root, 'notes.md'), 'Fine: [readme](README.md)\n');
    git('add', 'README.md', 'notes.md');
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('fails, naming the file, the line and the path', () => {
    expect(outsideReferencesOfRepository(root)).toEqual([
      {
        file: 'README.md',
        line: 1,
        path: '../outside/spec/card.md',
        why: 'climbs out of the repository (../outside/spec/card.md)',
      },
    ]);
  });

  it('is run on the real repository root', () => {
    expect(path.join(REPO_ROOT, 'nx.json')).toBe(path.resolve(__dirname, '../../../nx.json'));
  });
});
