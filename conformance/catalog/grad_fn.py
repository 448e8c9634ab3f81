"""Graph nodes: names, next_functions, AccumulateGrad, saved values, metadata, reprs, direct calls."""

from .. import docs
from ..case import case


@case("Arithmetic ops record AddBackward0, SubBackward0, MulBackward0, DivBackward0, NegBackward0, RsubBackward1",
      doc=docs.NODE_NAME,
      features=("non-scalar",))
def arithmetic_node_names(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    rec("(x + w).grad_fn", (x + w).grad_fn)
    rec("(x + 1).grad_fn", (x + 1).grad_fn)
    rec("(x - w).grad_fn", (x - w).grad_fn)
    rec("(x * w).grad_fn", (x * w).grad_fn)
    rec("(x / w).grad_fn", (x / w).grad_fn)
    rec("(-x).grad_fn", (-x).grad_fn)
    rec("(1 - x).grad_fn", (1 - x).grad_fn)


@case("pow records PowBackward0 for a scalar exponent, PowBackward1 for a tensor exponent and "
      "PowBackward2 for a scalar base", doc=docs.NODE_NAME,
      features=("non-scalar",))
def pow_node_overloads(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    rec("(x ** 2).grad_fn", (x ** 2).grad_fn)
    rec("(x ** w).grad_fn", (x ** w).grad_fn)
    rec("(2 ** x).grad_fn", (2 ** x).grad_fn)


@case("Elementwise functions record ExpBackward0, LogBackward0, AbsBackward0, SqrtBackward0, ReluBackward0, "
      "TanhBackward0, SigmoidBackward0", doc=docs.NODE_NAME,
      features=("non-scalar",))
def elementwise_node_names(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("x.exp().grad_fn", x.exp().grad_fn)
    rec("x.log().grad_fn", x.log().grad_fn)
    rec("x.abs().grad_fn", x.abs().grad_fn)
    rec("x.sqrt().grad_fn", x.sqrt().grad_fn)
    rec("torch.relu(x).grad_fn", torch.relu(x).grad_fn)
    rec("torch.tanh(x).grad_fn", torch.tanh(x).grad_fn)
    rec("torch.sigmoid(x).grad_fn", torch.sigmoid(x).grad_fn)


@case("Reductions record SumBackward0, SumBackward1 (with dim), MeanBackward0, MaxBackward1 (full) "
      "and MaxBackward0 (with dim)", doc=docs.NODE_NAME,
      features=("non-scalar",))
def reduction_node_names(torch, rec):
    m = torch.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True, device=rec.device)
    rec("m.sum().grad_fn", m.sum().grad_fn)
    rec("m.sum(dim=0).grad_fn", m.sum(dim=0).grad_fn)
    rec("m.mean().grad_fn", m.mean().grad_fn)
    rec("m.max().grad_fn", m.max().grad_fn)
    values, indices = m.max(dim=1)
    rec("m.max(dim=1).values.grad_fn", values.grad_fn)
    rec("m.max(dim=1).indices", indices)


@case("Matrix and structural ops record MmBackward0, MvBackward0, CloneBackward0, CatBackward0, "
      "StackBackward0, ToCopyBackward0, WhereBackward0, SoftmaxBackward0; linear on a 1-D input ends in "
      "SqueezeBackward4", doc=docs.NODE_NAME,
      features=("non-scalar", "float64", "nn"))
def matrix_and_structural_node_names(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    m = torch.tensor([[1.0, 0.0], [2.0, 1.0]], requires_grad=True, device=rec.device)
    rec("m.mm(m).grad_fn", m.mm(m).grad_fn)
    rec("m.mv(x).grad_fn", m.mv(x).grad_fn)
    rec("x.clone().grad_fn", x.clone().grad_fn)
    rec("torch.cat([x, x]).grad_fn", torch.cat([x, x]).grad_fn)
    rec("torch.stack([x, x]).grad_fn", torch.stack([x, x]).grad_fn)
    rec("x.to(torch.float64).grad_fn", x.to(torch.float64).grad_fn)
    rec("torch.where(x > 1, x, -x).grad_fn", torch.where(x > 1, x, -x).grad_fn)
    rec("torch.softmax(x, dim=0).grad_fn", torch.softmax(x, dim=0).grad_fn)
    rec("linear(x, m).grad_fn", torch.nn.functional.linear(x, m).grad_fn)


@case("Nodes are torch.autograd.graph.Node instances whose class is named like name(), except C++ nodes "
      "whose name() carries the namespace", doc=docs.NODE_NAME,
      features=("non-scalar", "graph-introspection"))
def node_types_and_class_names(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    rec("y.grad_fn.name()", y.grad_fn.name())
    rec("type(y.grad_fn).__name__", type(y.grad_fn).__name__)
    rec("acc.name()", acc.name())
    rec("type(acc).__name__", type(acc).__name__)
    rec("isinstance(y.grad_fn, Node)", isinstance(y.grad_fn, torch.autograd.graph.Node))
    rec("isinstance(acc, Node)", isinstance(acc, torch.autograd.graph.Node))


@case("next_functions holds one (node, index) pair per input: AccumulateGrad for a leaf, (None, 0) "
      "for an input that does not require grad", doc=docs.AUTOGRAD_GRAPH,
      features=("non-scalar", "graph-introspection"))
def next_functions_of_leaf_and_constant(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    c = torch.tensor([3.0, 4.0], device=rec.device)
    y = x * c
    rec("y.grad_fn.next_functions", y.grad_fn.next_functions)


@case("next_functions chain from the output back to the leaves", doc=docs.HISTORY,
      features=("non-scalar", "graph-introspection"))
def next_functions_chain(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    z = (x * w + x).sum()
    rec("z.grad_fn", z.grad_fn)
    add = z.grad_fn.next_functions[0][0]
    rec("z.grad_fn.next_functions", z.grad_fn.next_functions)
    rec("add.next_functions", add.next_functions)
    rec("mul.next_functions", add.next_functions[0][0].next_functions)


@case("The AccumulateGrad node of a leaf points to the leaf, has no next_functions and is reused while alive",
      doc=docs.AUTOGRAD_GRAPH,
      features=("non-scalar", "graph-introspection"))
def accumulate_grad_node(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    rec("acc", acc)
    rec.same("acc.variable is x", acc.variable, x)
    rec("acc.next_functions", acc.next_functions)
    z = x + 1
    rec.same("z.grad_fn.next_functions[0][0] is acc", z.grad_fn.next_functions[0][0], acc)
    rec("x.grad_fn", x.grad_fn)


@case("mul saves its operands: _saved_self and _saved_other are the input tensors, and a Python scalar "
      "operand is saved as a 0-dim tensor", doc=docs.AUTOGRAD_GRAPH, tags=("hard",),
      features=("non-scalar", "graph-introspection"))
def mul_saves_its_operands(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    y = x * w
    rec.same("y.grad_fn._saved_self is x", y.grad_fn._saved_self, x)
    rec.same("y.grad_fn._saved_other is w", y.grad_fn._saved_other, w)
    z = x * 2
    rec("z.grad_fn._saved_other", z.grad_fn._saved_other)


@case("exp saves its result: _saved_result equals the output and shares its memory", doc=docs.SAVED_TENSORS,
      features=("non-scalar", "graph-introspection"))
def exp_saves_result(torch, rec):
    x = torch.tensor([0.0, 1.0], requires_grad=True, device=rec.device)
    y = x.exp()
    saved = y.grad_fn._saved_result
    rec("torch.equal(saved, y)", torch.equal(saved, y))
    rec("saved.data_ptr() == y.data_ptr()", saved.data_ptr() == y.data_ptr())
    rec.same("saved.grad_fn is y.grad_fn", saved.grad_fn, y.grad_fn)


@case("sum saves the input sizes (_saved_self_sym_sizes); sum(dim) also saves _saved_dim and _saved_keepdim",
      doc=docs.AUTOGRAD_GRAPH,
      features=("non-scalar", "graph-introspection"))
def sum_saved_sizes_and_dim(torch, rec):
    m = torch.ones(2, 3, requires_grad=True, device=rec.device)
    total = m.sum()
    rows = m.sum(dim=1)
    rec("total.grad_fn._saved_self_sym_sizes", total.grad_fn._saved_self_sym_sizes)
    rec("rows.grad_fn._saved_dim", rows.grad_fn._saved_dim)
    rec("rows.grad_fn._saved_keepdim", rows.grad_fn._saved_keepdim)
    rec("rows.grad_fn._saved_self_sym_sizes", rows.grad_fn._saved_self_sym_sizes)


@case("A node's metadata is a dict, empty at first, that keeps what is stored in it", doc=docs.NODE_METADATA,
      features=("non-scalar", "in-place", "graph-introspection"))
def metadata_persists(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    rec("y.grad_fn.metadata", y.grad_fn.metadata)
    y.grad_fn.metadata["tag"] = "scaled"
    rec("y.grad_fn.metadata after storing", y.grad_fn.metadata)
    rec.same("same dict each time", y.grad_fn.metadata, y.grad_fn.metadata)


@case("Tensor reprs show requires_grad=True on leaves, grad_fn=<...> on non-leaves and the dtype when "
      "not the default; a node's repr names its class and an address", doc=docs.HISTORY,
      features=("non-scalar", "float64", "detach", "printing"))
def tensor_and_node_reprs(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec.printed("repr(x)", repr(x))
    rec.printed("repr(x * 2)", repr(x * 2))
    rec.printed("repr((x * 2).sum())", repr((x * 2).sum()))
    rec.printed("repr(x.to(torch.float64))", repr(x.to(torch.float64)))
    rec.printed("repr(x.detach())", repr(x.detach()))
    rec.printed("repr((x * 2).grad_fn)", repr((x * 2).grad_fn))


@case("Calling a grad_fn directly returns the gradients for its inputs, None where one does not require grad",
      doc=docs.AUTOGRAD_GRAPH,
      features=("non-scalar",))
def call_grad_fn_directly(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    c = torch.tensor([3.0, 4.0], device=rec.device)
    y = x * c
    rec("y.grad_fn(torch.ones(2))", y.grad_fn(torch.ones(2, device=rec.device)))


@case("After backward frees the graph, saved scalars stay readable while reading a saved tensor raises",
      doc=docs.SAVED_TENSORS, tags=("error",),
      features=("non-scalar", "graph-introspection"))
def saved_scalar_survives_free(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x ** 3
    y.sum().backward()
    rec("y.grad_fn._saved_exponent", y.grad_fn._saved_exponent)
    rec("y.grad_fn._saved_self", y.grad_fn._saved_self)


@case("matmul of a batch with a matrix or vector folds the batch into one mm/mv when the smaller operand "
      "requires grad, or when the fold is a view; otherwise it runs a bmm (a vector squeezed back out): the "
      "graph it records shows which (found by the fuzzer)",
      doc=docs.docstring("torch.matmul"), tags=("hard",),
      features=("non-scalar", "graph-introspection", "views"))
def matmul_folds_by_which_operand_requires_grad(torch, rec):
    def batch(transposed):
        if transposed:
            return torch.ones(3, 2, 4, device=rec.device).transpose(0, 1)
        return torch.ones(2, 3, 4, device=rec.device)

    cases = [("batch @ matrix, batch requires grad", batch(False), torch.ones(4, 2, device=rec.device), 0),
             ("transposed batch @ matrix, batch requires grad", batch(True), torch.ones(4, 2, device=rec.device), 0),
             ("batch @ matrix, matrix requires grad", batch(False), torch.ones(4, 2, device=rec.device), 1),
             ("transposed batch @ vector, batch requires grad", batch(True), torch.ones(4, device=rec.device), 0),
             ("matrix @ batch, matrix requires grad", torch.ones(3, 4, device=rec.device),
              torch.ones(2, 4, 2, device=rec.device), 0),
             ("matrix @ batch, batch requires grad", torch.ones(3, 4, device=rec.device),
              torch.ones(2, 4, 2, device=rec.device), 1),
             ("vector @ batch, vector requires grad", torch.ones(4, device=rec.device),
              torch.ones(2, 4, 2, device=rec.device), 0),
             ("vector @ batch, batch requires grad", torch.ones(4, device=rec.device),
              torch.ones(2, 4, 2, device=rec.device), 1)]
    for label, a, b, which in cases:
        (a, b)[which].requires_grad_()
        y = a @ b
        rec(label, [y.shape, y.grad_fn, [node for node, _ in y.grad_fn.next_functions]])
