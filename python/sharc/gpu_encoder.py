"""What the encoder needs to run well on a GPU: an fp16 graph, pooling inside it, IO binding.

`gpu_graph` rewrites an ONNX encoder once (`sharc.model_cache.prepare_gpu_model` caches the
result like the int8 CPU copy):

1. weights stored as int8 with a dequantizing ``Cast`` and ``Mul`` (the shipped MiniLM) are
   folded into plain float tensors, so that the GPU multiplies them directly;
2. each layer's attention, exported as some twenty reshapes, scalings, masks and MatMuls that
   write ``[batch, heads, tokens, tokens]`` tensors several times over, becomes one
   ``com.microsoft.MultiHeadAttention`` node (fused kernels on CUDA), given each row's length;
3. for ``precision="fp16"`` every float tensor and operator becomes float16, except the graph's
   inputs and outputs, which stay as they were (int64 ids, float32 vectors): the float32 token
   output costs one cast on the device and lets late chunking and the pooling below sum in
   float32;
4. pooling and L2 normalisation are appended to the graph as a second output,
   :data:`POOLED_OUTPUT` ``[batch, dimension]``, so that independent chunks come back from the
   device as one small row each instead of ``[batch, tokens, dimension]`` token vectors.

`BoundRunner` runs a session through IO binding: inputs are copied to the device once, only the
outputs asked for come back.

Accuracy, measured with the CPU provider: over 162 standard-library functions and classes
(benches/speed/gpu_encoder.py), the fp16 copy's vectors are at cosine >= 0.9999993 to the
shipped float32 graph's (mean 0.9999996); the float32 graph with every intermediate tensor
rounded to float16, which is what the CUDA kernels store and the CPU provider (running many
fp16 nodes in float32) does not show, stays >= 0.99999 (tests/test_gpu_encoder.py). The int8
copy is at 0.994. fp16 therefore keeps the model's id: an index embedded in fp16 on a GPU and
queried in float32 on a CPU (or the reverse) needs no re-embedding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

Precision = Literal["fp32", "fp16"]

#: The pooled, normalised output `gpu_graph` appends.
POOLED_OUTPUT = "sharc_sentence_embedding"

#: Names the cached GPU copies; bump it when `gpu_graph` changes what it writes.
GPU_RECIPE_VERSION = "v1"


def gpu_recipe(precision: Precision, pooling: str, *, fused: bool = True) -> str:
    """The recipe part of a cached GPU copy's file name, e.g. ``fp16-mha-mean-pooled-v1``."""
    return f"{precision}-{'mha-' if fused else ''}{pooling}-pooled-{GPU_RECIPE_VERSION}"


# -- the graph --------------------------------------------------------------------------------


def gpu_graph(
    data: bytes, *, precision: Precision, pooling: str, output: str, fused: bool = True
) -> bytes:
    """The serialized GPU copy of the ONNX model ``data`` (see the module's docstring).

    ``fused`` replaces each layer's attention by one MultiHeadAttention node
    (:func:`fuse_attention`) where the pattern is recognised.

    ``output`` names the model's token output ``[batch, tokens, dimension]`` and ``pooling``
    (``mean``, ``cls`` or ``last``) how :data:`POOLED_OUTPUT` is made from it. Raises
    ValueError when the model has no such output.
    """
    import onnx

    model = onnx.load_from_string(data)
    if output not in [o.name for o in model.graph.output]:
        raise ValueError(f"the model has no output {output!r}")
    fold_int8_weights(model)
    if fused:
        fuse_attention(model)
    if precision == "fp16":
        model = to_float16(model)
    elif precision != "fp32":
        raise ValueError(f"precision must be 'fp32' or 'fp16', not {precision!r}")
    append_pooling(model, output=output, pooling=pooling)
    onnx.checker.check_model(model)
    return bytes(model.SerializeToString())


def fold_int8_weights(model: Any, *, into: frozenset[str] | None = None) -> int:
    """Replace each ``Mul(Cast(int8 initializer), scale initializer)`` by its float32 value.

    ``into`` limits the folding to weights whose every consumer is one of these operator types
    (the int8 quantizer wants only MatMul weights as floats); None folds them all. Returns how
    many weights were folded.
    """
    from onnx import TensorProto, numpy_helper

    graph = model.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    producers = {output: node for node in graph.node for output in node.output}
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    dropped: set[int] = set()
    folded = []
    for node in graph.node:
        if node.op_type != "Mul" or len(node.input) != 2:
            continue
        cast = producers.get(node.input[0])
        scale = initializers.get(node.input[1])
        if cast is None or cast.op_type != "Cast" or scale is None:
            continue
        weight = initializers.get(cast.input[0])
        if weight is None or weight.data_type != TensorProto.INT8:
            continue
        users = consumers.get(node.output[0], [])
        if not users or (into is not None and any(user.op_type not in into for user in users)):
            continue
        if len(consumers.get(cast.output[0], [])) != 1:
            continue
        values = numpy_helper.to_array(weight).astype(np.float32) * numpy_helper.to_array(scale)
        folded.append(numpy_helper.from_array(values.astype(np.float32), node.output[0]))
        dropped.update((id(node), id(cast)))
    kept = [node for node in graph.node if id(node) not in dropped]
    used = {name for node in kept for name in node.input} | {o.name for o in graph.output}
    tensors = [tensor for tensor in graph.initializer if tensor.name in used] + folded
    del graph.node[:]
    graph.node.extend(kept)
    del graph.initializer[:]
    graph.initializer.extend(tensors)
    return len(folded)


def fuse_attention(model: Any) -> int:
    """Replace each layer's unfused attention by one ``com.microsoft.MultiHeadAttention`` node.

    The exported graph computes attention as separate reshapes, transposes, scalings, two
    MatMuls, a mask, a Softmax and a NaN guard, writing ``[batch, heads, tokens, tokens]``
    tensors several times (onnxruntime's own attention fusion does not recognise this export).
    The fused node takes the three projections and the attention mask and runs one kernel
    (flash or memory-efficient attention on CUDA). A layer is fused when, from its Softmax,
    the pattern reads: scores = MatMul(q', k') + mask bias, where q' and k' are reshapes,
    transposes and scalings of Add outputs (the projections, scaled by 1/sqrt(head size) in
    all), and the probabilities' MatMul with v' is transposed and reshaped back to
    ``[batch, tokens, hidden]``. Returns how many layers were fused.
    """
    from onnx import numpy_helper

    graph = model.graph
    if "attention_mask" not in [i.name for i in graph.input]:
        return 0
    initializers = {t.name: t for t in graph.initializer}
    producers = {output: node for node in graph.node for output in node.output}
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    def constant(name: str) -> np.ndarray | None:
        if name in initializers:
            return numpy_helper.to_array(initializers[name])
        node = producers.get(name)
        if node is not None and node.op_type == "Constant":
            return numpy_helper.to_array(node.attribute[0].t)
        return None

    def projection(name: str) -> tuple[str, float] | None:
        """The Add output ``name`` is reshaped/transposed/scaled from, and the scale applied."""
        scale = 1.0
        for _ in range(8):
            node = producers.get(name)
            if node is None:
                return None
            if node.op_type == "Add":
                return name, scale
            if node.op_type in ("Reshape", "Transpose"):
                name = node.input[0]
            elif node.op_type == "Mul":
                values = [constant(x) for x in node.input]
                if values[1] is not None and values[1].size == 1:
                    scale *= float(values[1].reshape(()))
                    name = node.input[0]
                elif values[0] is not None and values[0].size == 1:
                    scale *= float(values[0].reshape(()))
                    name = node.input[1]
                else:
                    return None
            else:
                return None
        return None

    def single(name: str, op: str) -> Any:
        users = consumers.get(name, [])
        return users[0] if len(users) == 1 and users[0].op_type == op else None

    fused: list[tuple[Any, list[str], str, int]] = []  # (softmax, [q, k, v], output, head)
    for softmax in [n for n in graph.node if n.op_type == "Softmax"]:
        add = producers.get(softmax.input[0])
        if add is None or add.op_type != "Add":
            continue
        scores = next(
            (
                producers[x]
                for x in add.input
                if x in producers and producers[x].op_type == "MatMul"
            ),
            None,
        )
        if scores is None:
            continue
        q, k = projection(scores.input[0]), projection(scores.input[1])
        # The NaN guard (rows with every key masked) ends in a Where before the second MatMul.
        probabilities = softmax.output[0]
        where = next((u for u in consumers.get(probabilities, []) if u.op_type == "Where"), None)
        if where is not None:
            probabilities = where.output[0]
        context = single(probabilities, "MatMul")
        if q is None or k is None or context is None:
            continue
        v = projection(context.input[1])
        transpose = single(context.output[0], "Transpose")
        reshape = transpose and single(transpose.output[0], "Reshape")
        if v is None or reshape is None or v[1] != 1.0:
            continue
        head_size = _head_size(constant, producers, q[0], consumers)
        if head_size is None or abs(q[1] * k[1] - head_size**-0.5) > 1e-4 * head_size**-0.5:
            continue
        fused.append((softmax, [q[0], k[0], v[0]], reshape.output[0], head_size))

    if not fused:
        return 0
    _insert_fused_attention(model, fused, producers, initializers)
    return len(fused)


def _insert_fused_attention(
    model: Any,
    fused: list[tuple[Any, list[str], str, int]],
    producers: dict[str, Any],
    initializers: dict[str, Any],
) -> None:
    """Add one MultiHeadAttention node per layer `fuse_attention` matched, fed the mask as
    each row's length, and drop the unfused nodes whose outputs they replace."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    # The mask as each row's length ([batch] int32): sharc pads on the right, and this is the
    # form onnxruntime's fused fp16 CUDA kernels (TensorRT fused attention, cuDNN SDPA) take; a
    # [batch, tokens] mask sends MultiHeadAttention to slower paths. Counted in float32, which
    # every provider reduces.
    mask = _name("mask_float")
    graph.node.append(helper.make_node("Cast", ["attention_mask"], [mask], to=TensorProto.FLOAT))
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13)
    counted = _name("mask_length_float")
    if opset >= 13:
        axes = _name("mask_length_axes")
        graph.initializer.append(numpy_helper.from_array(np.array([1], np.int64), axes))
        graph.node.append(helper.make_node("ReduceSum", [mask, axes], [counted], keepdims=0))
    else:
        graph.node.append(helper.make_node("ReduceSum", [mask], [counted], axes=[1], keepdims=0))
    lengths = _name("mask_length")
    graph.node.append(helper.make_node("Cast", [counted], [lengths], to=TensorProto.INT32))
    for number, (_, (q_name, k_name, v_name), output, head_size) in enumerate(fused):
        hidden = _projection_width(producers, initializers, q_name)
        graph.node.append(
            helper.make_node(
                "MultiHeadAttention",
                [q_name, k_name, v_name, "", lengths],
                [output],
                name=_name(f"attention_{number}"),
                domain="com.microsoft",
                num_heads=hidden // head_size,
            )
        )
    replaced = {output for _, _, output, _ in fused}
    kept = [
        node
        for node in graph.node
        if node.op_type == "MultiHeadAttention" or not (set(node.output) & replaced)
    ]
    del graph.node[:]
    graph.node.extend(_topological(kept))
    _drop_dead_nodes(graph)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))


def _head_size(constant: Any, producers: dict[str, Any], q: str, consumers: Any) -> int | None:
    """The last dimension of the Reshape that splits projection ``q`` into heads."""
    for user in consumers.get(q, []):
        if user.op_type != "Reshape":
            continue
        shape = constant(user.input[1])
        if shape is None:
            concat = producers.get(user.input[1])
            if concat is None or concat.op_type != "Concat":
                continue
            shape = constant(concat.input[-1])
        if shape is not None and int(np.asarray(shape).reshape(-1)[-1]) > 0:
            return int(np.asarray(shape).reshape(-1)[-1])
    return None


def _projection_width(producers: dict[str, Any], initializers: dict[str, Any], name: str) -> int:
    """The width of a projection ``Add(MatMul(x, W), b)``: the bias's length."""
    add = producers[name]
    for operand in add.input:
        if operand in initializers:
            return int(initializers[operand].dims[-1])
    raise ValueError(f"projection {name} has no bias initializer")


def _topological(nodes: list[Any]) -> list[Any]:
    """``nodes`` ordered so that each comes after the producers of its inputs."""
    produced = {output: i for i, node in enumerate(nodes) for output in node.output}
    order: list[Any] = []
    state: dict[int, int] = {}
    for start in range(len(nodes)):
        stack = [(start, 0)]
        while stack:
            index, position = stack.pop()
            if state.get(index) == 2:
                continue
            state[index] = 1
            inputs = nodes[index].input
            while position < len(inputs):
                producer = produced.get(inputs[position])
                position += 1
                if producer is not None and state.get(producer) is None:
                    stack.append((index, position))
                    stack.append((producer, 0))
                    break
            else:
                state[index] = 2
                order.append(nodes[index])
    return order


def _drop_dead_nodes(graph: Any) -> None:
    """Remove nodes and initializers no graph output depends on."""
    needed = {o.name for o in graph.output}
    alive = []
    for node in reversed(list(graph.node)):
        if set(node.output) & needed:
            alive.append(node)
            needed.update(x for x in node.input if x)
    del graph.node[:]
    graph.node.extend(reversed(alive))
    tensors = [t for t in graph.initializer if t.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(tensors)


def to_float16(model: Any) -> Any:
    """``model`` with float16 weights and operators and its inputs and outputs unchanged.

    onnxruntime's converter clamps constants to float16's range, so the attention mask's
    ``finfo(float32).min`` becomes -65504 rather than -inf. LayerNormalization and Softmax
    stay float16: the CUDA kernels accumulate them in float32 anyway.
    """
    from onnxruntime.transformers.float16 import convert_float_to_float16

    return convert_float_to_float16(model, keep_io_types=True)


def append_pooling(model: Any, *, output: str, pooling: str) -> None:
    """Add :data:`POOLED_OUTPUT`: the rows of ``output`` pooled and L2-normalised, float32.

    Mean pooling averages the tokens the attention mask keeps, as `sharc.embedding` does on the
    host; ``cls`` takes the first token, ``last`` the last unmasked one. A zero row stays zero.
    """
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    hidden = output
    if _output_type(graph, output) != TensorProto.FLOAT:
        hidden = _name("hidden_float")
        graph.node.append(helper.make_node("Cast", [output], [hidden], to=TensorProto.FLOAT))

    def constant(name: str, value: Any, dtype: Any) -> str:
        graph.initializer.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def node(op: str, inputs: list[str], name: str, **attributes: Any) -> str:
        graph.node.append(helper.make_node(op, inputs, [name], name=name, **attributes))
        return name

    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13)

    def reduce(op: str, data: str, axes: list[int], name: str, keepdims: int) -> str:
        # Axes became an input of ReduceSum at opset 13 and of the other reductions at 18.
        if opset >= (13 if op == "ReduceSum" else 18):
            return node(
                op, [data, constant(name + "_axes", axes, np.int64)], name, keepdims=keepdims
            )
        return node(op, [data], name, axes=axes, keepdims=keepdims)

    def unsqueeze(data: str, axes: list[int], name: str) -> str:
        if opset >= 13:
            return node("Unsqueeze", [data, constant(name + "_axes", axes, np.int64)], name)
        return node("Unsqueeze", [data], name, axes=axes)

    n = _name
    if pooling == "mean":
        if "attention_mask" not in [i.name for i in graph.input]:
            raise ValueError("mean pooling in the graph needs an attention_mask input")
        mask = node("Cast", ["attention_mask"], n("mask"), to=TensorProto.FLOAT)
        mask = unsqueeze(mask, [2], n("mask_3d"))
        masked = node("Mul", [hidden, mask], n("masked"))
        summed = reduce("ReduceSum", masked, [1], n("sum"), keepdims=0)  # [batch, dim]
        counts = reduce("ReduceSum", mask, [1], n("count"), keepdims=0)  # [batch, 1]
        one = constant(n("one"), 1.0, np.float32)
        pooled = node("Div", [summed, node("Max", [counts, one], n("count_1"))], n("mean"))
    elif pooling == "cls":
        first = constant(n("first"), 0, np.int64)
        pooled = node("Gather", [hidden, first], n("cls"), axis=1)
    elif pooling == "last":
        if "attention_mask" not in [i.name for i in graph.input]:
            raise ValueError("last-token pooling in the graph needs an attention_mask input")
        ones = constant(n("one_int"), 1, np.int64)
        zero = constant(n("zero_int"), 0, np.int64)
        mask = node("Cast", ["attention_mask"], n("mask"), to=TensorProto.INT64)
        length = reduce("ReduceSum", mask, [1], n("length"), keepdims=1)  # [batch, 1]
        index = node("Max", [node("Sub", [length, ones], n("last_raw")), zero], n("last"))
        pooled = node("GatherND", [hidden, index], n("last_token"), batch_dims=1)
    else:
        raise ValueError(f"pooling must be 'mean', 'cls' or 'last', not {pooling!r}")
    norm = reduce("ReduceL2", pooled, [-1], n("norm"), keepdims=1)  # [batch, 1]
    tiny = constant(n("tiny"), 1e-12, np.float32)
    node("Div", [pooled, node("Max", [norm, tiny], n("norm_floor"))], POOLED_OUTPUT)
    dimension = _output_shape(graph, output)[-1]
    graph.output.append(
        helper.make_tensor_value_info(POOLED_OUTPUT, TensorProto.FLOAT, ["batch", dimension])
    )


def _name(part: str) -> str:
    return f"sharc_pool_{part}"


def _output_type(graph: Any, name: str) -> int:
    return int(next(o for o in graph.output if o.name == name).type.tensor_type.elem_type)


def _output_shape(graph: Any, name: str) -> list[Any]:
    dims = next(o for o in graph.output if o.name == name).type.tensor_type.shape.dim
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in dims]


# -- running ------------------------------------------------------------------------------------


class BoundRunner:
    """Runs a session through IO binding on one device (``cuda`` or, for tests, ``cpu``).

    Inputs go to the device once per call; outputs are allocated there by onnxruntime and only
    those asked for are copied back, so the token vectors behind a pooled output never cross to
    the host.
    """

    def __init__(self, session: InferenceSession, device_type: str, device_id: int = 0) -> None:
        self.session = session
        self.device_type = device_type
        self.device_id = device_id

    def run(self, outputs: Sequence[str], feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        from onnxruntime import OrtValue

        binding = self.session.io_binding()
        for name, array in feed.items():
            value = OrtValue.ortvalue_from_numpy(
                np.ascontiguousarray(array), self.device_type, self.device_id
            )
            binding.bind_ortvalue_input(name, value)
        for name in outputs:
            binding.bind_output(name, self.device_type, self.device_id)
        self.session.run_with_iobinding(binding)
        return list(binding.copy_outputs_to_cpu())


__all__ = [
    "GPU_RECIPE_VERSION",
    "POOLED_OUTPUT",
    "BoundRunner",
    "Precision",
    "append_pooling",
    "fold_int8_weights",
    "gpu_graph",
    "gpu_recipe",
    "to_float16",
]
