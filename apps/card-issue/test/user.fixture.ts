import { randomInt } from 'node:crypto';
import { CreateUserDto } from '../src/contracts/user.dto';

/** A valid User object (spec 2.2) for tests; a random passport unless one is given. */
export function aUser(overrides: Partial<CreateUserDto> = {}): CreateUserDto {
  return {
    firstName: 'Ivan',
    middleName: 'Ivanovich',
    lastName: 'Petrov',
    gender: 'MALE',
    clientType: 'FL',
    bankruptIndividual: false,
    bankruptEntrepreneur: false,
    contactInfo: { phone: '79161234567', email: 'ivan.petrov@example.com' },
    embossingName: 'IVAN PETROV',
    passportData: {
      birthDate: '15-03-1990',
      birthPlace: 'Moscow',
      issueDate: '20-04-2010',
      series: randomInt(10_000).toString().padStart(4, '0'),
      number: randomInt(1_000_000).toString().padStart(6, '0'),
    },
    actualAddress: {
      country: 'Russia',
      region: 'Moscow',
      city: 'Moscow',
      street: 'Tverskaya',
      building: '1',
      apartment: '12',
    },
    registrationAddress: {
      country: 'Russia',
      region: 'Moscow',
      city: 'Moscow',
      street: 'Arbat',
      building: '5',
    },
    account: 'RUR',
    managerPin: 'M_0001',
    ...overrides,
  };
}
