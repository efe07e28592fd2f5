import { DateTime } from 'luxon';
import { REDACTED, redactLogLine } from './redact-log';

const NONE = new Set<string>();

describe('redactLogLine', () => {
  it('replaces every personal or secret key at the top and below, in objects and arrays', () => {
    const line = {
      email: 'top@example.com',
      holder: {
        lastName: 'Ivanov',
        contactInfo: { phone: '79990000000', email: 'a@example.com' },
        passportData: { series: '4510', number: '123456' },
      },
      users: [{ phoneNumber: '79991111111', firstName: 'Anna' }],
      request: { headers: { 'x-secret': 's3cret', authorization: 'Bearer t', cookie: 'c=1' } },
      deep: { a: { b: { c: { d: { series: '1234', number: '654321' } } } } },
    };
    expect(redactLogLine(line, NONE)).toEqual({
      email: REDACTED,
      holder: { lastName: 'Ivanov', contactInfo: REDACTED, passportData: REDACTED },
      users: [{ phoneNumber: REDACTED, firstName: 'Anna' }],
      request: { headers: { 'x-secret': REDACTED, authorization: REDACTED, cookie: REDACTED } },
      deep: { a: { b: { c: { d: { series: REDACTED, number: REDACTED } } } } },
    });
    // The caller's objects are left as they were.
    expect(line.holder.contactInfo.phone).toBe('79990000000');
    expect(line.users[0].phoneNumber).toBe('79991111111');
  });

  it('returns a line with nothing to redact as it is, and keeps untouched objects', () => {
    const when = DateTime.fromISO('2026-11-26T10:00:00Z');
    const line = { moved: 5, at: when, status: { from: 'NEW', to: 'PROCESSING' } };
    expect(redactLogLine(line, NONE)).toBe(line);
    const withPhone = { at: when, status: line.status, phone: '79990000000' };
    const redacted = redactLogLine(withPhone, NONE);
    expect(redacted.at).toBe(when);
    expect(redacted.status).toBe(line.status);
  });

  it('leaves serialized keys and errors to their serializers', () => {
    const err = Object.assign(new Error('boom'), { email: 'in-error@example.com' });
    const req = { headers: { authorization: 'Bearer t' } };
    const line = { err, req, cause: { err } };
    const redacted = redactLogLine(line, new Set(['err', 'req']));
    expect(redacted).toBe(line);
  });

  it('stops at cycles', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(redactLogLine({ cyclic }, NONE).cyclic).toBe(cyclic);
    cyclic.email = 'x@example.com';
    expect((redactLogLine({ cyclic }, NONE).cyclic as Record<string, unknown>).email).toBe(
      REDACTED,
    );
  });

  it('keeps undefined values undefined (pino leaves them out)', () => {
    expect(redactLogLine({ phone: undefined, a: 1 }, NONE)).toEqual({ phone: undefined, a: 1 });
  });
});
