import { ManagerNotFoundError } from '../managers/managers.errors';
import { ManagersService } from '../managers/managers.service';
import { registration } from '../../test/client-request.fixture';
import { AccountNumberGenerator } from './account-number.generator';
import { ClientUnderageError, PassportOutdatedError } from './clients.errors';
import { ClientsRepository } from './clients.repository';
import { ClientsIdempotencyService } from './clients-idempotency.service';
import { ClientsService } from './clients.service';
import { FixedClock } from '@bank/shared/calendar';

describe('ClientsService (rules before storage)', () => {
  const insert = jest.fn();
  const requireByPin = jest.fn();
  const service = new ClientsService(
    { insert } as unknown as ClientsRepository,
    { requireByPin } as unknown as ManagersService,
    new AccountNumberGenerator(),
    {} as ClientsIdempotencyService, // no Idempotency-Key in these tests
    new FixedClock('2026-11-23T09:00:00.000Z'),
    'Europe/Moscow',
  );

  beforeEach(() => {
    insert.mockReset();
    requireByPin.mockReset();
  });

  const request = (passport: Record<string, string>) =>
    registration({ passportData: { ...registration().passportData, ...passport } });

  it('refuses an under-18 client before looking up the manager or writing anything', async () => {
    await expect(
      service.register(request({ birthDate: '24-11-2008', issueDate: '01-12-2022' })),
    ).rejects.toBeInstanceOf(ClientUnderageError);
    expect(requireByPin).not.toHaveBeenCalled();
    expect(insert).not.toHaveBeenCalled();
  });

  it('refuses an outdated passport before writing anything', async () => {
    await expect(
      service.register(request({ birthDate: '15-03-1981', issueDate: '14-03-2026' })),
    ).rejects.toBeInstanceOf(PassportOutdatedError);
    expect(insert).not.toHaveBeenCalled();
  });

  it('writes nothing for an unknown manager', async () => {
    requireByPin.mockRejectedValue(new ManagerNotFoundError('X_0000'));
    await expect(service.register(request({}))).rejects.toBeInstanceOf(ManagerNotFoundError);
    expect(insert).not.toHaveBeenCalled();
  });
});
