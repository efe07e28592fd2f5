/** One HTTP write as the load sent it and got its answer (status 0: no answer). */
export interface Answer {
  /** What was sent: 'POST', 'POST+key', 'POST holder', 'PATCH', 'register', 'register+key'. */
  kind: string;
  sentAt: number;
  answeredAt: number;
  status: number;
  /** What the 2xx acknowledged (request id, client id), when it did. */
  id?: string;
  /** The Idempotency-Key sent, if any. */
  key?: string;
  /** The message of a non-2xx, for the report. */
  message?: string;
}

export interface Recovery {
  /** From the event to the first 2xx of a write sent after it; null when none came. */
  firstOkMs: number | null;
  /** The longest time without any 2xx answer, from the event to the last answer. */
  longestGapMs: number;
  /** Answers by status (0 = none), of the writes sent from the event on. */
  byStatus: Map<number, number>;
}

const ok = (status: number) => status >= 200 && status < 300;

/**
 * How one service went through an event at `eventAt`: the first 2xx of a write sent after it,
 * the longest stretch without a 2xx answer (from the event on: a switchover that the first
 * writes after it still reach the old leader for is only over once writes are taken again), and
 * the statuses of the writes sent from the event on.
 */
export function recoveryOf(answers: Answer[], eventAt: number): Recovery {
  const after = answers.filter((a) => a.sentAt >= eventAt);
  const firstOk = after
    .filter((a) => ok(a.status))
    .reduce<number | null>(
      (first, a) => (first === null || a.answeredAt < first ? a.answeredAt : first),
      null,
    );
  const okTimes = answers
    .filter((a) => ok(a.status) && a.answeredAt >= eventAt)
    .map((a) => a.answeredAt)
    .sort((x, y) => x - y);
  const lastAnswer = Math.max(eventAt, ...answers.map((a) => a.answeredAt));
  let longestGapMs = 0;
  let previous = eventAt;
  for (const at of [...okTimes, lastAnswer]) {
    longestGapMs = Math.max(longestGapMs, at - previous);
    previous = Math.max(previous, at);
  }
  const byStatus = new Map<number, number>();
  for (const a of after) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
  return { firstOkMs: firstOk === null ? null : firstOk - eventAt, longestGapMs, byStatus };
}

/** "12 x 201, 3 x 503, 1 x no answer", by status. */
export function formatStatuses(byStatus: Map<number, number>): string {
  return [...byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${n} x ${status === 0 ? 'no answer' : status}`)
    .join(', ');
}
