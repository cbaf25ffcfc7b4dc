"""The helpers Paddle code calls around feeding and fetching: ``base.executor._as_lodtensor``
and ``_fetch_var``, ``DataFeeder``, ``paddle.reader``'s decorators, generator loaders
(``DataLoader.from_generator``, ``fluid.io.PyReader``) and tuples in ``fetch_list``."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import base, fluid

VarType = base.core.VarDesc.VarType


def test_as_lodtensor_casts_python_values_to_the_given_dtype():
    as_tensor = base.executor._as_lodtensor
    assert as_tensor(1.0, base.CPUPlace(), VarType.INT32)._dtype() == VarType.INT32
    assert as_tensor((1, 2), base.CPUPlace(), VarType.FP64)._dtype() == VarType.FP64
    assert np.array(as_tensor([[1], [2]], None, "float32")).shape == (2, 1)
    assert as_tensor(np.arange(3), None)._dtype() == VarType.INT64     # arrays as they are
    with pytest.raises(AssertionError):
        as_tensor(1, base.CPUPlace())
    with pytest.raises(TypeError):
        as_tensor({"a": 1}, base.CPUPlace(), VarType.INT32)
    with pytest.raises(TypeError):
        as_tensor([{1.2}, {1, 2}], base.CPUPlace(), VarType.INT32)


@pytest.mark.parametrize("value", [np.array([1, 3, 5], "int32"), np.array([], "int32")])
def test_fetch_var_reads_the_scope(value):
    x = paddle.static.data("x", value.shape, "int32")
    x.persistable = True
    base.Executor().run(feed={"x": value}, fetch_list=[])
    fetched = base.executor._fetch_var("x")
    np.testing.assert_array_equal(fetched, value)
    assert fetched.dtype == np.int32
    with pytest.raises(ValueError, match="Cannot find nothing in scope"):
        base.executor._fetch_var("nothing")


def test_data_feeder_stacks_casts_and_shapes_a_minibatch():
    img = paddle.static.data("img", [-1, 1, 2, 2])
    label = paddle.static.data("label", [-1, 1], "int64")
    feeder = base.DataFeeder(feed_list=[img, "label"], place=base.CPUPlace())
    batch = [(np.arange(4.0), 3), (np.ones(4), 5)]
    fed = feeder.feed(batch)
    assert np.array(fed["img"]).shape == (2, 1, 2, 2) and np.array(fed["img"]).dtype == np.float32
    np.testing.assert_array_equal(np.array(fed["label"]), [[3], [5]])
    with pytest.raises(AssertionError, match="does not match len\\(feed_list\\)"):
        feeder.feed([(np.ones(4),)])
    seq = paddle.static.data("seq", [-1, 1], "int64", lod_level=1)
    fed = base.DataFeeder([seq], None).feed([([[1], [2]],), ([[3]],)])
    assert fed["seq"].recursive_sequence_lengths() == [[2, 1]]


def test_reader_decorators():
    def numbers():
        return iter(range(10))
    shuffled = list(paddle.reader.shuffle(numbers, buf_size=4)())
    assert sorted(shuffled) == list(range(10))
    assert sorted(shuffled[:4]) == [0, 1, 2, 3]          # shuffled within windows of 4
    assert list(paddle.reader.buffered(numbers, 2)()) == list(range(10))
    assert list(paddle.reader.firstn(numbers, 3)()) == [0, 1, 2]
    assert list(paddle.reader.chain(numbers, numbers)()) == list(range(10)) * 2
    assert list(paddle.reader.map_readers(lambda a, b: a * b, numbers, numbers)())[3] == 9
    pairs = paddle.reader.compose(numbers, lambda: iter([(i, -i) for i in range(10)]))
    assert next(iter(pairs())) == (0, 0, 0)
    with pytest.raises(paddle.reader.ComposeNotAligned):
        list(paddle.reader.compose(numbers, lambda: iter(range(3)))())
    assert list(paddle.reader.xmap_readers(lambda v: v + 1, numbers, 2, 4, order=True)()) == \
        list(range(1, 11))


def _samples():
    for i in range(5):
        yield np.full(3, i, "float32"), np.array([i])


def test_generator_loader_feeds_a_static_program():
    x = fluid.data("x", [None, 3])
    y = fluid.data("y", [None, 1], "int64")
    total = paddle.sum(x) + paddle.sum(paddle.cast(y, "float32"))
    loader = paddle.io.DataLoader.from_generator(feed_list=[x, y], capacity=4)
    loader.set_sample_generator(_samples, batch_size=2, drop_last=False)
    exe = paddle.static.Executor()
    sums = [float(exe.run(feed=batch, fetch_list=[total])[0]) for batch in loader()]
    assert sums == [0 + 3 + 1, 2 * 3 + 3 * 3 + 5, 4 * 3 + 4]
    reader = fluid.io.PyReader(feed_list=[x, y], capacity=2)
    reader.decorate_batch_generator(lambda: iter([(np.ones((2, 3), "float32"),
                                                   np.zeros((2, 1), "int64"))]))
    assert [float(exe.run(feed=b, fetch_list=[total])[0]) for b in reader()] == [6.0]
    with pytest.raises(NotImplementedError, match="iterable=True"):
        paddle.io.DataLoader.from_generator(feed_list=[x], iterable=False)


def test_generator_loader_gives_tensors_in_dygraph():
    paddle.disable_static()
    loader = paddle.io.DataLoader.from_generator(capacity=2, return_list=True)
    loader.set_sample_list_generator(paddle.batch(_samples, 5))
    (features, labels), = list(loader())
    assert isinstance(features, paddle.Tensor) and features.shape == [5, 3]
    assert labels.numpy().ravel().tolist() == [0, 1, 2, 3, 4]


def test_fetch_list_takes_tuples_of_variables_and_refuses_other_items():
    x = paddle.static.data("x", [4, 1])
    output = paddle.unique_consecutive(x, return_inverse=True, return_counts=True, axis=0)
    exe = paddle.static.Executor()
    feed = {"x": np.array([[0], [0], [1], [0]], "float32")}
    out, inverse, counts = exe.run(feed=feed, fetch_list=[output])
    np.testing.assert_array_equal(out, [[0], [1], [0]])
    np.testing.assert_array_equal(inverse, [0, 0, 1, 2])
    np.testing.assert_array_equal(counts, [2, 1, 1])
    for bad in ([23], [(output[0], 32)]):
        with pytest.raises(TypeError):
            exe.run(feed=feed, fetch_list=bad)
