import { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { RequestValidationError } from '@bank/shared/errors';

/**
 * A path parameter that must match a pattern; otherwise a 400 naming the parameter, the same
 * body a parameter DTO gives through the global ValidationPipe. A plain regular expression test
 * where such a DTO would cost class-transformer and class-validator on every read.
 */
export class PatternParamPipe implements PipeTransform<unknown, string> {
  constructor(
    private readonly pattern: RegExp,
    private readonly message: string,
  ) {}

  transform(value: unknown, metadata: ArgumentMetadata): string {
    if (typeof value !== 'string' || !this.pattern.test(value))
      throw new RequestValidationError([
        { path: metadata.data ?? '(param)', message: this.message },
      ]);
    return value;
  }
}
