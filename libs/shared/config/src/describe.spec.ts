import { Describe, describedVariables } from './describe';

class Base {
  @Describe('The port.')
  PORT = 1;

  @Describe('Logs.', { default: 'unset: quiet' })
  LOG?: string;
}

class Service extends Base {
  @Describe('Its own port.', { production: 'Required' })
  override PORT = 2;

  @Describe('A flag.')
  FLAG = true;
}

describe('Describe', () => {
  it("keeps each property's description, the base class's first, a subclass's winning", () => {
    expect([...describedVariables(Service)]).toEqual([
      ['PORT', { effect: 'Its own port.', production: 'Required' }],
      ['LOG', { effect: 'Logs.', default: 'unset: quiet' }],
      ['FLAG', { effect: 'A flag.' }],
    ]);
    expect([...describedVariables(Base).keys()]).toEqual(['PORT', 'LOG']);
  });
});
