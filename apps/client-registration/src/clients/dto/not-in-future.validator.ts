import { Inject, Injectable } from '@nestjs/common';
import { ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';
import { isInFuture } from '../passport.rules';
import { BUSINESS_TIME_ZONE, Clock, localDateIn, parseDdMmYyyy } from '@bank/shared/calendar';

/**
 * A dd-MM-yyyy date must not be after the business date. Needs the injected clock, so it is
 * a Nest provider; configureApp hands class-validator the Nest container (useContainer).
 * Values that are not real dates pass here: IsDdMmYyyy reports them.
 */
@ValidatorConstraint({ name: 'notInFuture' })
@Injectable()
export class NotInFutureConstraint implements ValidatorConstraintInterface {
  constructor(
    private readonly clock: Clock,
    @Inject(BUSINESS_TIME_ZONE) private readonly timeZone: string,
  ) {}

  validate(value: unknown): boolean {
    if (!this.clock) {
      throw new Error('NotInFutureConstraint was created outside the Nest container');
    }
    if (typeof value !== 'string') return true;
    const date = parseDdMmYyyy(value);
    if (!date) return true;
    return !isInFuture(date, localDateIn(this.clock.now(), this.timeZone));
  }
}
