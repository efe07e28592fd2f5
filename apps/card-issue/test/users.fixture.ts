import request from 'supertest';
import { AddressDto, CreateUserDto } from '../src/contracts/user.dto';
import { SECRET } from './card-issue.harness';

export const address: AddressDto = {
  country: 'Russia',
  region: 'Moscow',
  city: 'Moscow',
  street: 'Tverskaya',
  building: '1',
  apartment: '15',
};

let passportCounter = 100000;

/** A valid User of the reference user service (spec 2.2) with a passport no other has. */
export function aUser(overrides: Partial<CreateUserDto> = {}): CreateUserDto {
  passportCounter += 1;
  return {
    firstName: 'Maria',
    middleName: 'Ivanovna',
    lastName: 'Petrova',
    gender: 'FEMALE',
    clientType: 'FL',
    bankruptIndividual: false,
    bankruptEntrepreneur: false,
    contactInfo: { phone: '79161234567', email: 'maria.petrova@example.com' },
    embossingName: 'MARIA PETROVA',
    passportData: {
      birthDate: '15-03-1990',
      birthPlace: 'Moscow',
      issueDate: '20-03-2010',
      series: '4510',
      number: String(passportCounter),
    },
    actualAddress: { ...address },
    registrationAddress: { ...address },
    account: 'RUR',
    managerPin: 'M_0001',
    ...overrides,
  };
}

/** Creates a user in the reference user service over HTTP and returns its id. */
export async function createUser(
  baseUrl: string,
  overrides: Partial<CreateUserDto> = {},
  secret = SECRET,
): Promise<string> {
  const res = await request(baseUrl)
    .post('/user-api/api/v1/users')
    .set('X-secret', secret)
    .send(aUser(overrides));
  if (res.status !== 201)
    throw new Error(`user creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}
