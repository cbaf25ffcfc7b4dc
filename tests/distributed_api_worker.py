"""Run on 2 ranks by tests/test_distributed_api.py: Paddle's eager collective API."""
import numpy as np

import pyfluid as paddle
import pyfluid.distributed as dist

paddle.disable_static()
group = dist.init_parallel_env()
rank, size = dist.get_rank(), dist.get_world_size()
assert (group.rank, group.nranks, size) == (rank, 2, 2), group
assert dist.ParallelEnv().rank == rank

x = paddle.to_tensor(np.array([1.0, 2.0], np.float32) * (rank + 1))
dist.all_reduce(x)
np.testing.assert_array_equal(x.numpy(), [3.0, 6.0])
y = paddle.to_tensor(np.array([rank, -rank], np.int64))
dist.all_reduce(y, op=dist.ReduceOp.MAX)
np.testing.assert_array_equal(y.numpy(), [1, 0])
z = paddle.to_tensor(np.array([2.0 + rank], np.float64))
dist.all_reduce(z, op=dist.ReduceOp.AVG)
np.testing.assert_array_equal(z.numpy(), [2.5])

b = paddle.to_tensor(np.full((2, 2), 10.0 * rank, np.float32))
dist.broadcast(b, src=1)
np.testing.assert_array_equal(b.numpy(), np.full((2, 2), 10.0))

gathered = []
dist.all_gather(gathered, paddle.to_tensor(np.array([[rank, rank + 5]], np.int32)))
assert [g.numpy().tolist() for g in gathered] == [[[0, 5]], [[1, 6]]], gathered
dist.barrier()

dataset = paddle.io.TensorDataset([np.arange(10)])
sampler = paddle.io.DistributedBatchSampler(dataset, batch_size=2)
assert list(sampler) == ([[0, 1], [4, 5], [8]] if rank == 0 else [[2, 3], [6, 7], [9]])
print(f"rank {rank}: api ok", flush=True)
