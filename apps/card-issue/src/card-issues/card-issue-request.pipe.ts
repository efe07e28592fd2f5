import { Inject, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { RequestValidationError } from '@bank/shared/errors';
import { flattenValidationErrors } from '@bank/shared/validation';
import { checkCardIssueRules } from './card-issues.rules';
import { CardIssueRequestDto } from './dto/card-issue-request.dto';
import { BUSINESS_TIME_ZONE, Clock, localDateIn } from '@bank/shared/calendar';

/**
 * Validates a CardIssueRequest: field rules (class-validator) and the cross-field rules of
 * spec 2.6 together, so one 400 names every violated field by its full path. (The global
 * pipe skips this body: the handler declares it as a plain type.)
 */
@Injectable()
export class CardIssueRequestPipe implements PipeTransform<unknown, Promise<CardIssueRequestDto>> {
  constructor(
    private readonly clock: Clock,
    @Inject(BUSINESS_TIME_ZONE) private readonly timeZone: string,
  ) {}

  async transform(value: unknown): Promise<CardIssueRequestDto> {
    const dto = plainToInstance(CardIssueRequestDto, value ?? {}, {
      enableImplicitConversion: false,
    });
    const fieldErrors =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? flattenValidationErrors(
            await validate(dto, {
              whitelist: true,
              forbidNonWhitelisted: true,
              validationError: { target: false, value: false },
            }),
          )
        : [{ path: '(body)', message: 'must be a JSON object' }];
    const ruleErrors = checkCardIssueRules(value, localDateIn(this.clock.now(), this.timeZone));
    const reported = new Set(fieldErrors.map((e) => e.path));
    const errors = [...fieldErrors, ...ruleErrors.filter((e) => !reported.has(e.path))];
    if (errors.length) throw new RequestValidationError(errors);
    return dto;
  }
}
