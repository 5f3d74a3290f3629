/**
 * The RPC addresses of the cluster's endpoints. One JobMaster and one ResourceManager live on
 * the JobManager host; each TaskManager host runs one TaskExecutor endpoint.
 */
import { rpcAddress, type HostId, type RpcAddress } from '../api/ids.ts';

export const JOB_MASTER_ADDRESS: RpcAddress = rpcAddress('jobmaster');
export const RESOURCE_MANAGER_ADDRESS: RpcAddress = rpcAddress('resourcemanager');

/**
 * The TaskExecutor endpoint of one incarnation of `host`. Like Flink's ResourceID, a restarted
 * TaskManager is a new TaskExecutor (`bootUs`: its boot time), so the JobMaster and the
 * ResourceManager lose the old one by its heartbeats instead of mistaking the new one for it.
 */
export function taskExecutorAddress(host: HostId, bootUs: number): RpcAddress {
  return rpcAddress(`taskexecutor@${host}/${bootUs}`);
}
