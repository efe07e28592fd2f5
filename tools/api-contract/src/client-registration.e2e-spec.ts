import createClient from 'openapi-fetch';
import { RunningTestService } from '@bank/shared/testing';
import {
  registration as aRegistration,
  startClientRegistration,
} from '@bank/client-registration/testing';
import type { ClientRegistrationApi } from './lib/api-types';
import { SERVICES } from './lib/services';
import { describeSwaggerUi } from './lib/swagger-ui';

type RegisterClient = ClientRegistrationApi.components['schemas']['RegisterClientDto'];

const service = SERVICES['client-registration'];

/** A valid registration: the harness's, checked against the generated type. */
const registration: RegisterClient = aRegistration({ account: 'USD', managerPin: 'M_0002' });

describe('client-registration over real HTTP (api-contract)', () => {
  let t: RunningTestService;

  beforeAll(async () => {
    t = await startClientRegistration({
      label: 'api_contract_client_registration',
      env: service.overrides,
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('typed client (openapi-typescript + openapi-fetch)', () => {
    it('registers a client and reads it back by id', async () => {
      const client = createClient<ClientRegistrationApi.paths>({ baseUrl: t.url });

      const registered = await client.POST('/api/clients', { body: registration });
      expect(registered.response.status).toBe(201);
      if (!registered.data) throw new Error(`not registered: ${JSON.stringify(registered.error)}`);
      const { id } = registered.data;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(registered.data).toMatchObject({
        lastName: registration.lastName,
        managerPin: 'M_0002',
        account: { currency: 'USD' },
      });

      const read = await client.GET('/api/clients/{id}', { params: { path: { id } } });
      expect(read.response.status).toBe(200);
      expect(read.data).toEqual(registered.data);
    });

    it('gets the documented error body for an unknown id', async () => {
      const client = createClient<ClientRegistrationApi.paths>({ baseUrl: t.url });
      const { response, data, error } = await client.GET('/api/clients/{id}', {
        params: { path: { id: '3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21' } },
      });
      expect(response.status).toBe(404);
      expect(data).toBeUndefined();
      expect(error).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    });
  });

  describeSwaggerUi(() => t.url, [{ prefix: '', screenshot: 'client-registration-swagger-ui' }]);
});
