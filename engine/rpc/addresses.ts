/**
 * The RPC addresses of the cluster's endpoints. One JobMaster and one ResourceManager live on
 * the JobManager host; each TaskManager host runs one TaskExecutor endpoint.
 */
import { rpcAddress, type HostId, type RpcAddress } from '../api/ids.ts';

export const JOB_MASTER_ADDRESS: RpcAddress = rpcAddress('jobmaster');
export const RESOURCE_MANAGER_ADDRESS: RpcAddress = rpcAddress('resourcemanager');

/** The TaskExecutor endpoint of `host`. */
export function taskExecutorAddress(host: HostId): RpcAddress {
  return rpcAddress(`taskexecutor@${host}`);
}
