import { ExamplesObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const address = {
  country: 'Россия',
  region: 'Москва',
  city: 'Москва',
  street: 'Тверская',
  building: '1',
  apartment: '15',
};

const newUser = {
  firstName: 'Мария',
  middleName: 'Ивановна',
  lastName: 'Петрова',
  gender: 'FEMALE',
  clientType: 'FL',
  bankruptIndividual: false,
  bankruptEntrepreneur: false,
  contactInfo: { phone: '79161234567', email: 'maria.petrova@example.com' },
  embossingName: 'MARIA PETROVA',
  passportData: {
    birthDate: '15-03-1990',
    birthPlace: 'г. Москва',
    issueDate: '20-03-2010',
    series: '4510',
    number: '123456',
  },
  actualAddress: address,
  registrationAddress: address,
  account: 'RUR',
  managerPin: 'M_0001',
};

/**
 * The owner of every example: the demo user, which the reference user service holds on the
 * embedded database (reference-services/users/demo-user.ts; embedded-default.e2e-spec.ts tries
 * the first example there).
 */
const DEMO_USER_ID = 'X1A2B3';

/** One example per kind of request, shown in Swagger UI. */
export const CARD_ISSUE_REQUEST_EXAMPLES: ExamplesObject = {
  selfVirtual: {
    summary: 'Virtual card for oneself',
    value: {
      request: {
        cardOwner: DEMO_USER_ID,
        formFactor: 'VIRTUAL',
        cardHolder: { userId: DEMO_USER_ID, nameless: false, embossedName: 'IVAN PETROV' },
        options: { smsNotifications: { phoneNumber: '79161234567' } },
      },
    },
  },
  selfPlasticToBranch: {
    summary: 'Plastic card for oneself, delivered to a branch',
    value: {
      request: {
        cardOwner: DEMO_USER_ID,
        formFactor: 'PLASTIC',
        cardHolder: { userId: DEMO_USER_ID, nameless: false, embossedName: 'IVAN PETROV' },
        delivery: { toBranch: { id: '0001' } },
      },
    },
  },
  thirdPartyPlasticCourier: {
    summary: 'Plastic card for a third party (new user), by courier',
    value: {
      request: {
        cardOwner: DEMO_USER_ID,
        formFactor: 'PLASTIC',
        cardHolder: { nameless: false, user: newUser },
        options: { smsNotifications: { userId: DEMO_USER_ID } },
        delivery: {
          courier: {
            address,
            recipient: { userId: DEMO_USER_ID },
            date: '25-11-2026',
            timeSlot: { from: '10:00', to: '14:00' },
          },
        },
      },
    },
  },
  namelessVirtual: {
    summary: 'Nameless virtual card',
    value: {
      request: { cardOwner: DEMO_USER_ID, formFactor: 'VIRTUAL', cardHolder: { nameless: true } },
    },
  },
  namelessCourierNewRecipient: {
    summary: 'Nameless plastic card by courier to a new recipient',
    value: {
      request: {
        cardOwner: DEMO_USER_ID,
        formFactor: 'PLASTIC',
        cardHolder: { nameless: true },
        delivery: {
          courier: {
            address,
            recipient: {
              user: {
                firstName: 'Олег',
                lastName: 'Сидоров',
                contactInfo: { phone: '79031112233' },
              },
            },
            date: '26-11-2026',
            timeSlot: { from: '9:00', to: '13:00' },
          },
        },
      },
    },
  },
};
