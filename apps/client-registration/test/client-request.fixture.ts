/** Request bodies for the clients tests: valid by default, every field overridable. */
import { AddressDto } from '../src/clients/dto/address.dto';
import { PassportDataDto } from '../src/clients/dto/passport-data.dto';
import { RegisterClientDto } from '../src/clients/dto/register-client.dto';

/** 23-11-2026 15:00:00 in Europe/Moscow (business date 23-11-2026). */
export const NOW = '2026-11-23T12:00:00.000Z';

let passportCounter = 0;

/** A passport series + number no other test in the same database uses. */
export function nextPassport(): { series: string; number: string } {
  passportCounter += 1;
  return {
    series: (1000 + Math.floor(passportCounter / 1_000_000)).toString(),
    number: (100_000 + passportCounter).toString(),
  };
}

export function passportData(overrides: Partial<PassportDataDto> = {}): PassportDataDto {
  return {
    birthDate: '15-03-1990',
    birthPlace: 'г. Москва',
    issueDate: '20-03-2010',
    ...nextPassport(),
    ...overrides,
  };
}

export function address(overrides: Partial<AddressDto> = {}): AddressDto {
  return {
    country: 'Россия',
    region: 'Московская область',
    city: 'Химки',
    street: 'ул. Ленина',
    building: '10к2',
    apartment: '45',
    ...overrides,
  };
}

/**
 * A valid registration (spec 2.1) with a passport no other has. Overrides may carry wrong
 * values on purpose (the validation tests), so their values are not checked.
 */
export function registration(
  overrides: { [K in keyof RegisterClientDto]?: unknown } = {},
): RegisterClientDto {
  return {
    lastName: 'Петров',
    firstName: 'Иван',
    middleName: 'Сергеевич',
    gender: 'MALE',
    clientType: 'UP',
    bankruptIndividual: false,
    bankruptEntrepreneur: false,
    embossingName: 'IVAN PETROV',
    contactInfo: { phone: '79161234567', email: 'ivan.petrov@example.ru' },
    passportData: passportData(),
    actualAddress: address(),
    registrationAddress: address({ city: 'Москва', street: 'ул. Тверская' }),
    account: 'RUR',
    managerPin: 'M_0001',
    ...overrides,
  } as RegisterClientDto;
}

/** A copy of `body` with the value at a dotted path replaced (`undefined` removes the field). */
export function withField(body: object, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, unknown>;
  const keys = path.split('.');
  let target = copy;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = keys[keys.length - 1];
  if (value === undefined) delete target[last];
  else target[last] = value;
  return copy;
}
