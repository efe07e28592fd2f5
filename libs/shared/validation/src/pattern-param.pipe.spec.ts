import { RequestValidationError } from '@bank/shared/errors';
import { PatternParamPipe } from './pattern-param.pipe';

describe('PatternParamPipe', () => {
  const pipe = new PatternParamPipe(/^X[A-Z0-9]{5}$/, 'must be X followed by 5 characters');
  const metadata = { type: 'param', data: 'clientId' } as const;

  it('passes a matching value through unchanged', () => {
    expect(pipe.transform('X1A2B3', metadata)).toBe('X1A2B3');
  });

  it.each([['X1A2B'], ['X1A2B34'], ['x1a2b3'], [''], [undefined], [42]])(
    'refuses %p with a validation error naming the parameter',
    (value) => {
      let thrown: unknown;
      try {
        pipe.transform(value, metadata);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RequestValidationError);
      expect((thrown as RequestValidationError).fieldErrors).toEqual([
        { path: 'clientId', message: 'must be X followed by 5 characters' },
      ]);
    },
  );
});
