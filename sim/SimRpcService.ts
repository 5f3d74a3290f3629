/**
 * SimRpcService: the RpcService port of one host incarnation, a thin view on the world's
 * RpcNetwork. Calls made on behalf of an incarnation that has crashed are ignored (an ask then
 * never completes), since that incarnation's code can no longer run.
 */
import { CompletableFuture } from '../engine/api/index.ts';
import type { Executor, RpcAddress, RpcHandler, RpcKind, RpcService } from '../engine/api/index.ts';
import type { RpcNetwork } from './RpcNetwork.ts';
import type { SimHost } from './SimHost.ts';

export class SimRpcService implements RpcService {
  private readonly incarnation: number;

  constructor(
    private readonly net: RpcNetwork,
    private readonly host: SimHost,
  ) {
    this.incarnation = host.incarnation;
  }

  private get live(): boolean {
    return this.host.alive && this.host.incarnation === this.incarnation;
  }

  startEndpoint(address: RpcAddress, mainThread: Executor, handler: RpcHandler): void {
    if (this.live) this.net.startEndpoint(this.host, address, { mainThread, handler });
  }

  stopEndpoint(address: RpcAddress): void {
    if (this.live) this.net.stopEndpoint(this.host, address);
  }

  tell(from: RpcAddress, to: RpcAddress, kind: RpcKind, method: string, args: readonly unknown[]): void {
    if (this.live) this.net.tell(this.host, from, to, kind, method, args);
  }

  ask<R>(
    from: RpcAddress,
    to: RpcAddress,
    kind: RpcKind,
    method: string,
    args: readonly unknown[],
    timeoutUs: number,
  ): CompletableFuture<R> {
    if (!this.live) return new CompletableFuture<R>();
    return this.net.ask<R>(this.host, from, to, kind, method, args, timeoutUs);
  }
}
