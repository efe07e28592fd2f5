import { ManagerNotFoundError } from './managers.errors';
import { ManagersRepository } from './managers.repository';
import { ManagersService } from './managers.service';

describe('ManagersService', () => {
  const repository = {
    findByPin: (pin: string) =>
      Promise.resolve(pin === 'M_0001' ? { pin, fullName: 'Ivanov Ivan Ivanovich' } : null),
  } as unknown as ManagersRepository;
  const service = new ManagersService(repository);

  it('returns a known manager', async () => {
    await expect(service.requireByPin('M_0001')).resolves.toEqual({
      pin: 'M_0001',
      fullName: 'Ivanov Ivan Ivanovich',
    });
  });

  it('throws a 400 manager-not-found error in Russian naming the PIN', async () => {
    const error = await service.requireByPin('Z_1234').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManagerNotFoundError);
    expect(error).toMatchObject({
      code: 'MANAGER_NOT_FOUND',
      httpStatus: 400,
      title: 'Менеджер не найден',
      message: 'Менеджер с PIN Z_1234 не найден',
    });
  });
});
