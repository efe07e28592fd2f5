import { Injectable } from '@nestjs/common';
import { BRANCH_ID_PATTERN } from '@bank/shared/identifiers';
import { GatewayHttp } from '../gateway-http.client';
import { GatewayResult, toGatewayResult } from '../gateway-result.model';

export interface DownstreamBranch {
  /** Exactly 4 digits. */
  id: string;
  name: string;
  address: string;
}

const SERVICE = 'branch service';

/** Gateway to the branch service ({BRANCH_API_URL}, default {base_url}/branch-api). */
@Injectable()
export class BranchesClient {
  constructor(private readonly http: GatewayHttp) {}

  /** ok with the branch, not-found (also for an id that is not 4 digits), or unavailable. Retried. */
  async getBranch(id: string): Promise<GatewayResult<DownstreamBranch>> {
    if (!BRANCH_ID_PATTERN.test(id)) return { kind: 'not-found' };
    const outcome = await this.http.send(SERVICE, {
      method: 'GET',
      path: `/api/v1/branches/${encodeURIComponent(id)}`,
      idempotent: true,
    });
    return toGatewayResult<DownstreamBranch>(SERVICE, outcome, [200]);
  }
}
