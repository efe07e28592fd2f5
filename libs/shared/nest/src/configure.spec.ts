import { serviceUrls } from './configure';

describe('serviceUrls (the start log)', () => {
  it('shows a wildcard address as localhost, with the base path before /docs and /api/health', () => {
    expect(serviceUrls('0.0.0.0', 3000, '/card-issue')).toEqual({
      url: 'http://localhost:3000/card-issue',
      docs: 'http://localhost:3000/card-issue/docs',
      health: 'http://localhost:3000/card-issue/api/health',
    });
    expect(serviceUrls('::', 3001).docs).toBe('http://localhost:3001/docs');
  });

  it('keeps a specific host, IPv6 in brackets', () => {
    expect(serviceUrls('127.0.0.1', 3001).health).toBe('http://127.0.0.1:3001/api/health');
    expect(serviceUrls('::1', 3001).url).toBe('http://[::1]:3001');
  });
});
