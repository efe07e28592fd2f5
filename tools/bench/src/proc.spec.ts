import { cpuMs, cpuMsOfStat, rssMb, rssMbOfStatus } from './proc';

// /proc/<pid>/stat of a node process (proc(5)): pid (comm) state ppid ... utime stime ...
const stat = (comm: string, utime: number, stime: number) =>
  `4242 (${comm}) S 4200 4242 4200 0 -1 4194560 27183 0 0 0 ${utime} ${stime} 0 0 20 0 11 0 ` +
  '1765432 1268776960 31876 18446744073709551615 1 1 0 0 0 0 0 16781312 134235650 0 0 0 17 1 0 0 0 0 0\n';

describe('cpuMsOfStat', () => {
  it('adds utime and stime (fields 14 and 15) in clock ticks of 10 ms', () => {
    expect(cpuMsOfStat(stat('node', 250, 50))).toBe(3000);
  });

  it('reads the fields after the command name, whatever spaces and parentheses it holds', () => {
    expect(cpuMsOfStat(stat('node (main) 1 2 3', 7, 3))).toBe(100);
  });

  it('refuses a line without the CPU fields', () => {
    expect(() => cpuMsOfStat('4242 (node) S 4200')).toThrow(/no utime and stime/);
  });

  it("agrees with Node's own count of this process's CPU time", () => {
    // /proc counts whole ticks; process.cpuUsage() microseconds: within two ticks of each other.
    const before = process.cpuUsage();
    const fromProc = cpuMs(process.pid);
    const after = process.cpuUsage();
    expect(fromProc).toBeGreaterThan(0);
    expect(fromProc).toBeGreaterThanOrEqual((before.user + before.system) / 1000 - 20);
    expect(fromProc).toBeLessThanOrEqual((after.user + after.system) / 1000 + 20);
  });

  it('is 0 for a process that is gone', () => {
    expect(cpuMs(2 ** 30)).toBe(0);
    expect(cpuMs(undefined)).toBe(0);
  });
});

describe('rssMbOfStatus', () => {
  it('reads VmRSS in kB as MB', () => {
    expect(
      rssMbOfStatus('Name:\tnode\nVmPeak:\t 999999 kB\nVmRSS:\t   81920 kB\nRssAnon:\t 1 kB\n'),
    ).toBe(80);
  });

  it('is 0 without VmRSS (a kernel thread)', () => {
    expect(rssMbOfStatus('Name:\tkthreadd\nState:\tS (sleeping)\n')).toBe(0);
  });

  it("agrees with Node's own resident set size of this process", () => {
    const mb = rssMb(process.pid);
    expect(mb).toBeGreaterThan(0);
    // Both read the same kernel figure, a few moments apart.
    expect(Math.abs(mb - process.memoryUsage.rss() / 2 ** 20)).toBeLessThan(16);
  });
});
