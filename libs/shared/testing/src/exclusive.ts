import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './waiting';

const LOCK = join(tmpdir(), 'bank-backoffice-exclusive-test.lock');

/**
 * Keeps the heavy, timed test files (bulk data at statement timeouts, replicas as processes,
 * SIGKILLs under load) from running beside each other when Jest runs two files at a time: the
 * first to call it holds a lock file until it releases it (or its process ends), the others wait.
 * A lighter file still runs beside it. A test file calls runsExclusively() at its top level.
 */
export async function exclusiveSlot(
  options: { timeoutMs?: number; lockFile?: string } = {},
): Promise<() => void> {
  const { timeoutMs = EXCLUSIVE_WAIT_MS - 5_000, lockFile = LOCK } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      const release = () => {
        process.off('exit', release);
        if (holder(lockFile) === process.pid) unlinkSync(lockFile);
      };
      process.on('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = holder(lockFile);
    if (pid !== undefined && !alive(pid)) {
      // Left by a process that died (a crashed Jest worker): nobody holds it.
      try {
        unlinkSync(lockFile);
      } catch {
        // another waiter removed it first
      }
      continue;
    }
    if (Date.now() > deadline) throw new Error(`exclusive test slot held by process ${pid}`);
    await sleep(200);
  }
}

/** How long a file may wait for the slot (the longest exclusive files take minutes). */
export const EXCLUSIVE_WAIT_MS = 15 * 60_000;

function holder(lockFile: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockFile, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Holds the exclusive slot from the file's first `beforeAll` to its last `afterAll`. */
export function runsExclusively(): void {
  let release: (() => void) | undefined;
  beforeAll(async () => {
    release = await exclusiveSlot();
  }, EXCLUSIVE_WAIT_MS);
  afterAll(() => release?.());
}
