import { translateFieldMessage } from './registration-exception.filter';

describe('translateFieldMessage', () => {
  it('translates the unknown-field message of class-validator', () => {
    expect(translateFieldMessage('property fax should not exist')).toBe('поле не предусмотрено');
  });

  it('translates the not-an-object message of class-validator', () => {
    expect(translateFieldMessage('an unknown value was passed to the validate function')).toBe(
      'тело запроса должно быть JSON-объектом',
    );
  });

  it('translates each part of a joined message and keeps Russian ones', () => {
    expect(translateFieldMessage('обязательное поле; property x should not exist')).toBe(
      'обязательное поле; поле не предусмотрено',
    );
  });
});
