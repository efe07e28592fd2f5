import { checkCardIssueRules } from './card-issues.rules';

const today = { year: 2026, month: 11, day: 23 };

const courier = (over: Record<string, unknown> = {}) => ({
  address: { country: 'RU', region: 'MSK', city: 'Moscow', street: 'Tverskaya', building: '1' },
  recipient: { userId: 'X1A2B3' },
  date: '24-11-2026',
  timeSlot: { from: '10:00', to: '14:00' },
  ...over,
});

const body = (request: Record<string, unknown>) => ({
  request: {
    cardOwner: 'X1A2B3',
    formFactor: 'VIRTUAL',
    cardHolder: { userId: 'X1A2B3', nameless: false, embossedName: 'IVAN PETROV' },
    ...request,
  },
});

const paths = (request: Record<string, unknown>) =>
  checkCardIssueRules(body(request), today).map((e) => e.path);

describe('card-issue spec 2.6 rules', () => {
  it('accepts a valid virtual card for oneself', () => {
    expect(paths({})).toEqual([]);
  });

  describe('rule 1: not nameless', () => {
    it('accepts a third-party user alone', () => {
      expect(paths({ cardHolder: { nameless: false, user: { firstName: 'A' } } })).toEqual([]);
    });
    it('refuses userId without embossedName', () => {
      expect(paths({ cardHolder: { nameless: false, userId: 'X1A2B3' } })).toEqual([
        'request.cardHolder.embossedName',
      ]);
    });
    it('refuses embossedName without userId', () => {
      expect(paths({ cardHolder: { nameless: false, embossedName: 'IVAN' } })).toEqual([
        'request.cardHolder.userId',
      ]);
    });
    it('refuses neither', () => {
      expect(paths({ cardHolder: { nameless: false } })).toEqual(['request.cardHolder']);
    });
    it('refuses both a holder for oneself and a third party', () => {
      expect(
        paths({ cardHolder: { nameless: false, userId: 'X1A2B3', embossedName: 'I', user: {} } }),
      ).toEqual(['request.cardHolder']);
    });
  });

  describe('rule 2: nameless', () => {
    it('accepts a nameless holder with nothing else', () => {
      expect(paths({ cardHolder: { nameless: true } })).toEqual([]);
    });
    it('names each field that must be absent', () => {
      expect(
        paths({ cardHolder: { nameless: true, userId: 'X1A2B3', embossedName: 'I', user: {} } }),
      ).toEqual([
        'request.cardHolder.userId',
        'request.cardHolder.embossedName',
        'request.cardHolder.user',
      ]);
    });
  });

  describe('rule 3: delivery and form factor', () => {
    it('requires a delivery for PLASTIC', () => {
      expect(paths({ formFactor: 'PLASTIC' })).toEqual(['request.delivery']);
    });
    it('forbids a delivery for VIRTUAL', () => {
      expect(paths({ delivery: { toBranch: { id: '0001' } } })).toEqual(['request.delivery']);
    });
    it('accepts PLASTIC to a branch', () => {
      expect(paths({ formFactor: 'PLASTIC', delivery: { toBranch: { id: '0001' } } })).toEqual([]);
    });
  });

  describe('rule 4: one delivery method', () => {
    it('refuses both', () => {
      expect(
        paths({
          formFactor: 'PLASTIC',
          delivery: { toBranch: { id: '0001' }, courier: courier() },
        }),
      ).toEqual(['request.delivery']);
    });
    it('refuses none', () => {
      expect(paths({ formFactor: 'PLASTIC', delivery: {} })).toEqual(['request.delivery']);
    });
  });

  describe('rule 5: courier date from tomorrow to today + 7', () => {
    const at = (date: string) =>
      paths({ formFactor: 'PLASTIC', delivery: { courier: courier({ date }) } });
    it.each(['24-11-2026', '27-11-2026', '30-11-2026'])('accepts %s', (date) =>
      expect(at(date)).toEqual([]),
    );
    it.each([
      ['today', '23-11-2026'],
      ['yesterday', '22-11-2026'],
      ['today + 8', '01-12-2026'],
    ])('refuses %s', (_name, date) => expect(at(date)).toEqual(['request.delivery.courier.date']));
    it('crosses month and year ends', () => {
      const newYearsEve = { year: 2026, month: 12, day: 31 };
      const check = (date: string) =>
        checkCardIssueRules(
          body({ formFactor: 'PLASTIC', delivery: { courier: courier({ date }) } }),
          newYearsEve,
        );
      expect(check('01-01-2027')).toEqual([]);
      expect(check('07-01-2027')).toEqual([]);
      expect(check('08-01-2027').map((e) => e.path)).toEqual(['request.delivery.courier.date']);
    });
  });

  describe('rule 6: 4-hour slot within 09:00-21:00', () => {
    const slot = (from: string, to: string) =>
      paths({ formFactor: 'PLASTIC', delivery: { courier: courier({ timeSlot: { from, to } }) } });
    it.each([
      ['09:00', '13:00'],
      ['9:00', '13:00'],
      ['17:00', '21:00'],
      ['12:30', '16:30'],
    ])('accepts %s-%s', (from, to) => expect(slot(from, to)).toEqual([]));
    it('refuses a start before 09:00', () => {
      expect(slot('08:59', '12:59')).toEqual(['request.delivery.courier.timeSlot.from']);
    });
    it('refuses an end after 21:00', () => {
      expect(slot('17:01', '21:01')).toEqual(['request.delivery.courier.timeSlot.to']);
    });
    it.each([
      ['3 hours', '10:00', '13:00'],
      ['5 hours', '10:00', '15:00'],
      ['4 hours 1 minute', '10:00', '14:01'],
      ['backwards', '14:00', '10:00'],
    ])('refuses %s', (_name, from, to) =>
      expect(slot(from, to)).toEqual(['request.delivery.courier.timeSlot']),
    );
  });

  describe('rule 7: recipient', () => {
    const recipient = (r: Record<string, unknown>) =>
      paths({ formFactor: 'PLASTIC', delivery: { courier: courier({ recipient: r }) } });
    it('accepts a new third party', () => {
      expect(
        recipient({
          user: { firstName: 'A', lastName: 'B', contactInfo: { phone: '79990001122' } },
        }),
      ).toEqual([]);
    });
    it('refuses both', () => {
      expect(recipient({ userId: 'X1A2B3', user: {} })).toEqual([
        'request.delivery.courier.recipient',
      ]);
    });
    it('refuses neither', () => {
      expect(recipient({})).toEqual(['request.delivery.courier.recipient']);
    });
  });

  it('reports every broken rule at once', () => {
    expect(
      paths({
        formFactor: 'VIRTUAL',
        cardHolder: { nameless: true, userId: 'X1A2B3' },
        delivery: {
          courier: courier({ date: '23-11-2026', timeSlot: { from: '08:00', to: '10:00' } }),
        },
      }),
    ).toEqual([
      'request.cardHolder.userId',
      'request.delivery',
      'request.delivery.courier.date',
      'request.delivery.courier.timeSlot.from',
      'request.delivery.courier.timeSlot',
    ]);
  });

  it('leaves malformed parts to field validation', () => {
    expect(checkCardIssueRules(null, today)).toEqual([]);
    expect(checkCardIssueRules({ request: 'x' }, today)).toEqual([]);
    expect(
      paths({
        formFactor: 'PLASTIC',
        delivery: { courier: courier({ date: '31-02-2026', timeSlot: { from: 'x', to: 1 } }) },
      }),
    ).toEqual([]);
  });
});
