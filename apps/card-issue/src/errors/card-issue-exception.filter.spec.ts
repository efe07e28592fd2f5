import { HttpException } from '@nestjs/common';
import { FixedClock } from '@bank/shared/calendar';
import { CardIssueExceptionFilter } from './card-issue-exception.filter';

const TIMESTAMP = '2026-03-16T00:30:00.000';
const filter = new CardIssueExceptionFilter(
  new FixedClock('2026-03-15T21:30:00.000Z'),
  'Europe/Moscow',
);

describe('CardIssueExceptionFilter', () => {
  // The throttler's 429 reaching the filter is checked in libs/shared/nest security.e2e-spec.ts.
  it("answers the rate limit's 429 with the reason phrase and a retry message", () => {
    expect(filter.example(new HttpException('Too Many Requests', 429), TIMESTAMP)).toEqual({
      timestamp: TIMESTAMP,
      status: 429,
      error: 'Too Many Requests',
      message: 'Too many requests; retry later',
    });
  });
});
