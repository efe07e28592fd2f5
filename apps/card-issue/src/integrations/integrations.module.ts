import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { HttpModule, HttpService } from '@nestjs/axios';
import { Module, OnApplicationShutdown } from '@nestjs/common';
import { BranchesClient } from './branches/branches.client';
import { DownstreamMetrics } from './downstream.metrics';
import { DownstreamBudget, GatewayHttp } from './gateway-http.client';
import { OperationsClient } from './operations/operations.client';
import { UsersClient } from './users/users.client';

/** The HTTP gateways to the user, branch and operation services. */
@Module({
  imports: [
    HttpModule.registerAsync({
      // Agents per application instance (not per import), so shutdown can close their sockets.
      useFactory: () => ({
        httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
        httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
      }),
    }),
  ],
  providers: [
    GatewayHttp,
    DownstreamMetrics,
    DownstreamBudget,
    UsersClient,
    BranchesClient,
    OperationsClient,
  ],
  exports: [DownstreamBudget, UsersClient, BranchesClient, OperationsClient],
})
export class IntegrationsModule implements OnApplicationShutdown {
  constructor(private readonly http: HttpService) {}

  onApplicationShutdown(): void {
    const defaults = this.http.axiosRef.defaults;
    (defaults.httpAgent as HttpAgent | undefined)?.destroy();
    (defaults.httpsAgent as HttpsAgent | undefined)?.destroy();
  }
}
