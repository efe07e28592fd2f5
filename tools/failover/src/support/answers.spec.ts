import { Answer, formatStatuses, recoveryOf } from './answers';

const answer = (sentAt: number, answeredAt: number, status: number): Answer => ({
  kind: 'POST',
  sentAt,
  answeredAt,
  status,
});

describe('recoveryOf', () => {
  it('measures the first 2xx of a write sent after the event and the longest gap without one', () => {
    const answers = [
      answer(900, 950, 201),
      // Sent before the event, answered after it: not the first 2xx after the event.
      answer(990, 1_100, 201),
      answer(1_000, 1_200, 503),
      answer(1_300, 1_400, 0),
      answer(1_500, 4_000, 201),
      answer(4_000, 4_100, 201),
    ];
    const recovery = recoveryOf(answers, 1_000);
    expect(recovery.firstOkMs).toBe(3_000);
    expect(recovery.longestGapMs).toBe(2_900);
    expect(formatStatuses(recovery.byStatus)).toBe('1 x no answer, 2 x 201, 1 x 503');
  });

  it('counts the time to the last answer when no 2xx came after the event', () => {
    const recovery = recoveryOf([answer(1_000, 1_500, 503), answer(1_600, 2_500, 503)], 1_000);
    expect(recovery).toEqual({
      firstOkMs: null,
      longestGapMs: 1_500,
      byStatus: new Map([[503, 2]]),
    });
  });
});
