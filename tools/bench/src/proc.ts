/** What /proc tells of a process: its CPU time and resident memory (Linux). */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** CPU time (user + system) in ms from the text of /proc/<pid>/stat. */
export function cpuMsOfStat(stat: string): number {
  // Fields after the command name (which may hold spaces and parentheses): state is field 3,
  // utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`no utime and stime in ${stat}`);
  return ((utime + stime) * 1000) / USER_HZ;
}

/** Resident memory in MB from the text of /proc/<pid>/status (0 if it has no VmRSS). */
export function rssMbOfStatus(status: string): number {
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU time (user + system) a process has used so far, in ms (0 once it is gone). */
export function cpuMs(pid: number | undefined): number {
  try {
    return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/** Resident memory of a process in MB (0 once it is gone). */
export function rssMb(pid: number | undefined): number {
  try {
    return rssMbOfStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return 0;
  }
}
