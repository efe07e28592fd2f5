import { Catch } from '@nestjs/common';
import { RegistrationExceptionFilter, Problem, RegistrationErrorBody } from '@bank/shared/nest';

/**
 * class-validator words a few violations itself, in English and without a hook for another
 * message (unknown fields, a body that is not an object). The registration error body is
 * Russian throughout, so those are translated here before the shared filter renders them.
 */
const TRANSLATIONS: { pattern: RegExp; russian: string }[] = [
  { pattern: /^property .+ should not exist$/, russian: 'поле не предусмотрено' },
  {
    pattern: /^an unknown value was passed to the validate function$/,
    russian: 'тело запроса должно быть JSON-объектом',
  },
  {
    pattern: /^must not contain NUL characters or unpaired UTF-16 surrogates$/,
    russian: 'не должно содержать символ NUL или непарные суррогаты UTF-16',
  },
  { pattern: /^is nested deeper than (\d+) levels$/, russian: 'слишком глубокая вложенность' },
];

export function translateFieldMessage(message: string): string {
  return message
    .split('; ')
    .map((part) => TRANSLATIONS.find(({ pattern }) => pattern.test(part))?.russian ?? part)
    .join('; ');
}

@Catch()
export class ClientRegistrationExceptionFilter extends RegistrationExceptionFilter {
  protected override render(problem: Problem, timestamp: string): RegistrationErrorBody {
    const fieldErrors = problem.fieldErrors?.map(({ path, message }) => ({
      path,
      message: translateFieldMessage(message),
    }));
    return super.render({ ...problem, fieldErrors }, timestamp);
  }
}
