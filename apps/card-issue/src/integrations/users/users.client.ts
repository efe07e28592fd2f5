import { Injectable } from '@nestjs/common';
import { USER_ID_PATTERN } from '@bank/shared/identifiers';
import { GatewayHttp } from '../gateway-http.client';
import { GatewayResult, toGatewayResult } from '../gateway-result.model';

export interface DownstreamAddress {
  country: string;
  region: string;
  city: string;
  street: string;
  building: string;
  apartment?: string;
}

/** The User object of spec 2.2: what the user service creates a user from. */
export interface NewUser {
  firstName: string;
  middleName?: string;
  lastName: string;
  gender: 'MALE' | 'FEMALE';
  clientType: 'UP' | 'FL' | 'IP';
  bankruptIndividual: boolean;
  bankruptEntrepreneur: boolean;
  contactInfo: { phone: string; email: string };
  embossingName: string;
  passportData: {
    birthDate: string;
    birthPlace: string;
    issueDate: string;
    series: string;
    number: string;
  };
  actualAddress: DownstreamAddress;
  registrationAddress: DownstreamAddress;
  account: 'RUR' | 'USD' | 'EUR';
  managerPin: string;
}

/** A user as the user service stores it: the User object plus its id (X + 5 of A-Z, 0-9). */
export interface DownstreamUser extends NewUser {
  id: string;
}

const SERVICE = 'user service';

/** Gateway to the user service ({USER_API_URL}, default {base_url}/user-api). */
@Injectable()
export class UsersClient {
  constructor(private readonly http: GatewayHttp) {}

  /** ok with the user, not-found (also for an id that cannot exist), or unavailable. Retried. */
  async getUser(id: string): Promise<GatewayResult<DownstreamUser>> {
    if (!USER_ID_PATTERN.test(id)) return { kind: 'not-found' };
    const outcome = await this.http.send(SERVICE, {
      method: 'GET',
      path: `/api/v1/users/${encodeURIComponent(id)}`,
      idempotent: true,
    });
    return toGatewayResult<DownstreamUser>(SERVICE, outcome, [200]);
  }

  /**
   * ok with the stored user and its new id, conflict (passport already registered, or the key
   * used for another user; message from the service), or unavailable. With an idempotency key
   * the service answers a repeat with the user it created for that key, so the call is retried
   * (and a caller's retry after a timeout finds the same user); without one it is sent once.
   */
  async createUser(user: NewUser, idempotencyKey?: string): Promise<GatewayResult<DownstreamUser>> {
    const outcome = await this.http.send(SERVICE, {
      method: 'POST',
      path: '/api/v1/users',
      body: user,
      idempotent: idempotencyKey !== undefined,
      ...(idempotencyKey === undefined ? {} : { headers: { 'Idempotency-Key': idempotencyKey } }),
    });
    return toGatewayResult<DownstreamUser>(SERVICE, outcome, [201, 200]);
  }

  /** ok, not-found or unavailable; for compensating a user created for a request that failed. Retried. */
  async deleteUser(id: string): Promise<GatewayResult<void>> {
    if (!USER_ID_PATTERN.test(id)) return { kind: 'not-found' };
    const outcome = await this.http.send(SERVICE, {
      method: 'DELETE',
      path: `/api/v1/users/${encodeURIComponent(id)}`,
      idempotent: true,
    });
    return toGatewayResult<void>(SERVICE, outcome, [204, 200], { emptyBody: true });
  }
}
