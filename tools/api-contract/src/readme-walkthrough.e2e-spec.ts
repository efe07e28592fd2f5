import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnCardIssue } from '@bank/card-issue/testing';
import { spawnClientRegistration } from '@bank/client-registration/testing';
import { TestServiceProcess } from '@bank/shared/testing';

const README = join(__dirname, '..', '..', '..', 'README.md');

/**
 * The shell blocks of the README's "Walkthrough with curl" after the start command, as one
 * script that prints a line `@@` after each block, with the services' addresses replaced by the
 * test's.
 */
export function walkthroughScript(readme: string, cardIssue: string, registration: string): string {
  const section = readme.split('## Walkthrough with curl')[1].split('\n## ')[0];
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]);
  return blocks
    .slice(1)
    .map((block) => `${block}\necho; echo @@\n`)
    .join('')
    .replaceAll('http://localhost:3000', cardIssue)
    .replaceAll('http://localhost:3001', registration);
}

/*
 * The README's walkthrough run as a reader runs it, twice, against both services started as
 * `npm start` starts them (development, the embedded database): every step succeeds the second
 * time too.
 */
describe('the README walkthrough (api-contract)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'walkthrough-'));
  let cardIssue: TestServiceProcess;
  let registration: TestServiceProcess;

  beforeAll(async () => {
    const env = { NODE_ENV: 'development', X_SECRET: 'dev-secret', SCHEDULER_ENABLED: 'false' };
    [cardIssue, registration] = await Promise.all([
      spawnCardIssue({ ...env, PGLITE_DATA_DIR: join(dataDir, 'card-issue') }),
      spawnClientRegistration({ ...env, PGLITE_DATA_DIR: join(dataDir, 'client-registration') }),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([cardIssue?.stop('SIGTERM'), registration?.stop('SIGTERM')]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(['first', 'second'])('succeeds on the %s run', async () => {
    const script = walkthroughScript(readFileSync(README, 'utf8'), cardIssue.url, registration.url);
    const { stdout } = await promisify(execFile)('bash', ['-c', `set -eu\n${script}`]);
    const [userId, issued, read, patched, registered] = stdout
      .split('@@\n')
      .map((output) => output.trim());
    expect(userId).toMatch(/^X[A-Z0-9]{5}$/);
    expect(JSON.parse(issued)).toMatchObject({ status: 'CREATED', failureReason: null });
    expect(JSON.parse(read)).toMatchObject({ cardOwner: userId, formFactor: 'VIRTUAL' });
    expect(JSON.parse(patched)).toMatchObject({ status: 409 });
    expect(JSON.parse(registered)).toMatchObject({ account: { currency: 'RUR' } });
  });
});
