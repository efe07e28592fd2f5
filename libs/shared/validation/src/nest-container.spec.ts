import { Inject, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  IsString,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  useContainer,
  validate,
} from 'class-validator';
import { useNestContainerForValidation } from './nest-container';

const FORBIDDEN = Symbol('FORBIDDEN');

@ValidatorConstraint({ name: 'notForbidden' })
@Injectable()
class NotForbiddenConstraint implements ValidatorConstraintInterface {
  constructor(@Inject(FORBIDDEN) private readonly forbidden: string) {}

  validate(value: unknown): boolean {
    if (!this.forbidden) throw new Error('created outside the Nest container');
    return value !== this.forbidden;
  }
}

class Probe {
  @IsString()
  @Validate(NotForbiddenConstraint)
  name!: string;
}

const probe = (name: unknown) => Object.assign(new Probe(), { name });

describe('useNestContainerForValidation', () => {
  afterEach(() => useContainer({ get: () => undefined }, { fallback: true }));

  it('builds Nest-provided constraints through Nest and asks Nest once per class', async () => {
    const moduleRef = await Test.createTestingModule({
      providers: [NotForbiddenConstraint, { provide: FORBIDDEN, useValue: 'root' }],
    }).compile();
    const get = jest.spyOn(moduleRef, 'get');
    useNestContainerForValidation(moduleRef, [NotForbiddenConstraint]);

    expect(await validate(probe('alice'))).toHaveLength(0);
    const [error] = await validate(probe('root'));
    expect(error.constraints).toHaveProperty('notForbidden');
    expect(Object.keys((await validate(probe(42)))[0].constraints ?? {})).toContain('isString');

    // Three validations: Nest is asked once, for the listed class only (never for IsString's,
    // which it does not hold: asking would throw, and end a NestFactory application).
    expect(get.mock.calls.map(([token]) => token)).toEqual([NotForbiddenConstraint]);
  });
});
