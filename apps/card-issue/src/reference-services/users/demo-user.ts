import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DATABASE_SETTINGS, DatabaseSettings } from '@bank/shared/database';
import { CreateUserDto } from '../../contracts/user.dto';
import { toEntity } from './users.service';
import { UsersRepository } from './users.repository';

/** The user every Swagger UI example of the card issue POST names as its owner. */
export const DEMO_USER_ID = 'X1A2B3';

const address = {
  country: 'Россия',
  region: 'Москва',
  city: 'Москва',
  street: 'Тверская',
  building: '1',
  apartment: '7',
};

/** Its data: the holder name and phone the examples use. */
export const DEMO_USER: CreateUserDto = {
  firstName: 'Иван',
  middleName: 'Сергеевич',
  lastName: 'Петров',
  gender: 'MALE',
  clientType: 'FL',
  bankruptIndividual: false,
  bankruptEntrepreneur: false,
  contactInfo: { phone: '79161234567', email: 'ivan.petrov@example.com' },
  embossingName: 'IVAN PETROV',
  passportData: {
    birthDate: '01-02-1985',
    birthPlace: 'г. Москва',
    issueDate: '05-02-2005',
    series: '4500',
    number: '000001',
  },
  actualAddress: address,
  registrationAddress: address,
  account: 'RUR',
  managerPin: 'M_0001',
};

/**
 * On the embedded database (a service started without DATABASE_URL: `npm start`, trying it
 * out), the reference user service holds the demo user from the first start on, so that Swagger
 * UI's "Try it out" of the card issue POST issues a card instead of storing a FAILED request.
 * A configured database holds only the users its callers create.
 */
@Injectable()
export class DemoUserSeeder implements OnApplicationBootstrap {
  constructor(
    @Inject(DATABASE_SETTINGS) private readonly settings: DatabaseSettings,
    private readonly repository: UsersRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.settings.url) return;
    const outcome = await this.repository.insert(toEntity(DEMO_USER_ID, DEMO_USER, null));
    if (outcome === 'inserted') {
      new Logger(DemoUserSeeder.name).log(`Demo user ${DEMO_USER_ID} created (embedded database)`);
    }
  }
}
