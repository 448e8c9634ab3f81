"""In-place operations and autograd: which are refused, the version counter, rebased graphs."""

from .. import docs
from ..case import case


@case("An in-place op on a leaf that requires grad raises", doc=docs.INPLACE, tags=("error",),
      features=("non-scalar", "in-place"))
def leaf_requiring_grad_raises(torch, rec):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    w.add_(1.0)


@case("An in-place op on a view of a leaf that requires grad raises, with its own message",
      doc=docs.INPLACE, tags=("error",),
      features=("non-scalar", "in-place"))
def view_of_leaf_raises(torch, rec):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    part = w[1:]
    part.mul_(2.0)


@case("Under no_grad an in-place op on a leaf that requires grad is allowed; it bumps _version "
      "and the tensor stays a leaf", doc=docs.NO_GRAD_MODE,
      features=("non-scalar", "grad-mode", "in-place", "version-counter"))
def leaf_update_under_no_grad(torch, rec):
    w = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("w before", w, version=True)
    with torch.no_grad():
        w.sub_(0.5)
    rec("w after w.sub_(0.5) under no_grad", w, version=True)
    rec("w.grad_fn", w.grad_fn)


@case("An in-place op on a non-leaf replaces its grad_fn, bumps _version, and the gradient stays right",
      doc=docs.INPLACE,
      features=("non-scalar", "in-place", "version-counter", "graph-introspection"))
def nonleaf_inplace_replaces_grad_fn(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    rec("y = x * 2", y, version=True)
    y.add_(1.0)
    rec("y after y.add_(1.0)", y, version=True)
    rec("y.grad_fn.next_functions", y.grad_fn.next_functions)
    y.mul_(3.0)
    rec("y after y.mul_(3.0)", y, version=True)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("Modifying in place the output that exp saved for backward makes backward raise the "
      "version error, naming Exp", doc=docs.INPLACE_CHECKS, tags=("error",),
      features=("non-scalar", "in-place", "version-counter"))
def saved_exp_output_modified(torch, rec):
    x = torch.tensor([0.0, 1.0], requires_grad=True, device=rec.device)
    y = x.exp()
    y.add_(1.0)
    rec("y._version", y._version)
    y.sum().backward()


@case("Modifying an operand that mul saved raises at backward; the message names the op that "
      "produced the operand's current version", doc=docs.INPLACE_CHECKS, tags=("error", "hard"),
      features=("non-scalar", "in-place"))
def saved_mul_input_modified(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    a = x * 2
    z = a * w
    a.add_(1.0)
    rec("a.grad_fn after a.add_(1.0)", a.grad_fn)
    z.sum().backward()


@case("zero_() on a saved 2-D tensor: the version error names Zero and prints the 2-D size",
      doc=docs.INPLACE_CHECKS, tags=("error", "hard"),
      features=("non-scalar", "in-place"))
def saved_tensor_zeroed(torch, rec):
    x = torch.ones(2, 3, requires_grad=True, device=rec.device)
    a = x + 1
    z = a * a
    a.zero_()
    z.sum().backward()


@case("The version error names the op by its node's name less 'Backward0', or less 'Backward' when the "
      "node is a second overload (ClampBackward1: 'Clamp1'); CopySlices keeps its full name (found by the fuzzer)",
      doc=docs.INPLACE_CHECKS, tags=("error", "hard"), features=("non-scalar", "in-place", "version-counter", "detach"))
def version_error_names_the_overload(torch, rec):
    for label, modify in (("clamp_(-1, 1)", lambda a: a.clamp_(-1, 1)), ("pow_(2)", lambda a: a.pow_(2)),
                          ("a[0] = 0.5", lambda a: a.__setitem__(0, 0.5)),
                          ("detach().add_(1) after clamp(-1, 1)", None)):
        x = torch.tensor([0.5, -0.25], requires_grad=True, device=rec.device)
        a = x * 1
        if modify is None:
            a = a.clamp(-1, 1)
        else:
            modify(a)
        rec(f"a.grad_fn after {label}", a.grad_fn)
        z = a * a
        a.detach().add_(1)
        with rec.attempt(f"backward after {label}"):
            z.sum().backward()


@case("A backward node checks every tensor it saved before computing any gradient: an operand modified in place "
      "fails even a gradient that does not read it; with several modified, the error names the first in the "
      "node's own order (atan2 and maximum: other first; mv: the matrix; dot: self) (found by the fuzzer)",
      doc=docs.INPLACE_CHECKS, tags=("error", "hard"), features=("non-scalar", "in-place", "autograd.grad"))
def node_checks_all_it_saved_in_its_order(torch, rec):
    a0 = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    b0 = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    a, b = a0 * 1, b0 * 1
    z = a * b
    a.add_(1)
    with rec.attempt("d z / d a0 (its formula reads b; a was modified)"):
        rec("d z / d a0", torch.autograd.grad(z.sum(), [a0]))
    for label, op, shapes in (("atan2", lambda s, o: torch.atan2(s, o), ((2, 1), (3,))),
                              ("maximum", lambda s, o: torch.maximum(s, o), ((2, 1), (3,))),
                              ("mv", lambda s, o: torch.mv(s, o), ((2, 3), (3,))),
                              ("dot", lambda s, o: torch.dot(s, o), ((3,), (3,)))):
        leaves = [torch.full(shape, 0.5, requires_grad=True, device=rec.device) for shape in shapes]
        first, second = (leaf * 1 for leaf in leaves)
        out = op(first, second)
        first.add_(1)
        second.mul_(2)
        with rec.attempt(f"backward through {label} with both operands modified"):
            out.sum().backward()


@case("Item assignment of a number records the base's CopySlices with an edge for the number (a 0-dim tensor that "
      "does not require grad); after a backward without retain_graph the CopySlices is freed and a second "
      "backward through it raises (found by the fuzzer)", doc=docs.INPLACE, tags=("error", "hard"),
      features=("non-scalar", "in-place", "views", "retain-graph", "graph-introspection", "autograd.grad"))
def copy_slices_is_freed_with_the_graph(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    t = a + 1
    t[0] = 0.5
    rec("t.grad_fn.next_functions", t.grad_fn.next_functions)
    rec("d t.sum() / d a", torch.autograd.grad(t.sum(), [a]))
    with rec.attempt("a second autograd.grad through the freed CopySlices"):
        torch.autograd.grad(t.sum(), [a])


@case("autograd.grad through a base whose view was modified in place: the written region's gradient goes through "
      "the in-place op's derivative, as with backward() (found by the fuzzer)", doc=docs.INPLACE,
      features=("non-scalar", "in-place", "views", "autograd.grad", "custom-function"))
def autograd_grad_through_an_in_place_op_on_a_view(torch, rec):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    a = torch.tensor([0.5, 1.8, -1.5], requires_grad=True, device=rec.device)
    ones = torch.ones(3, device=rec.device)
    for label, write in (("mul_(1.5)", lambda v: v.mul_(1.5)), ("add_(1)", lambda v: v.add_(1)),
                         ("sin_()", lambda v: v.sin_())):
        for made, make in (("a * 2", lambda: a * 2), ("a custom Function", lambda: Double.apply(a))):
            t = make()
            write(t[1:])
            rec(f"d t / d a, t = {made}, t[1:].{label}", torch.autograd.grad(t, [a], grad_outputs=ones))


@case("A saved leaf modified under no_grad: the version error leaves out the 'which is output' part",
      doc=docs.INPLACE_CHECKS, tags=("error", "hard"),
      features=("non-scalar", "grad-mode", "in-place", "version-counter"))
def saved_leaf_modified_under_no_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    z = x * x
    with torch.no_grad():
        x.add_(1.0)
    rec("x", x, version=True)
    z.sum().backward()


@case("Two in-place ops on a saved tensor: the version error reports version 2, expected 0",
      doc=docs.INPLACE_CHECKS, tags=("error",),
      features=("non-scalar", "in-place", "version-counter"))
def two_inplace_ops_version_two(torch, rec):
    x = torch.tensor([0.5, 1.5], requires_grad=True, device=rec.device)
    y = x.exp()
    y.mul_(2.0)
    y.add_(1.0)
    rec("y", y, version=True)
    y.sum().backward()


@case("Modifying a tensor in place after a consumer that did not save it is fine", doc=docs.INPLACE_CHECKS,
      features=("non-scalar", "in-place", "version-counter"))
def unsaved_tensor_modified_is_fine(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    a = x * 3
    y = a + 10
    a.mul_(100.0)
    rec("a", a, version=True)
    y.sum().backward()
    rec("y", y)
    rec("x.grad", x.grad)


@case("The _version counter counts in-place ops and is shared between a tensor and its views",
      doc=docs.INPLACE_CHECKS,
      features=("non-scalar", "in-place", "version-counter"))
def version_counter_shared_by_views(torch, rec):
    base = torch.zeros(4, device=rec.device)
    view = base[1:3]
    rec("versions at start", (base._version, view._version))
    view.add_(1.0)
    rec("after view.add_(1.0)", (base._version, view._version))
    base.mul_(2.0)
    base[0] = 7.0
    rec("after base.mul_(2.0) and base[0] = 7.0", (base._version, view._version))
    rec("base", base)


@case("An in-place op on a view of a non-leaf gives the base a CopySlices node and the view an "
      "AsStridedBackward0 node, with the right gradient", doc=docs.INPLACE,
      features=("non-scalar", "in-place", "version-counter"))
def view_of_nonleaf_inplace(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    y = x * 2
    tail = y[1:]
    tail.mul_(10.0)
    rec("y", y, version=True)
    rec("tail", tail, version=True)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("Assigning into a non-leaf by indexing records CopySlices; the overwritten positions get zero gradient",
      doc=docs.INPLACE,
      features=("non-scalar", "in-place", "version-counter"))
def setitem_on_nonleaf(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    y = x * 3
    y[0] = 5.0
    rec("y after y[0] = 5.0", y, version=True)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("Assigning a value that requires grad into a plain tensor makes it a non-leaf; the value gets its gradient",
      doc=docs.INPLACE,
      features=("non-scalar", "in-place"))
def setitem_requires_grad_value_into_plain_tensor(torch, rec):
    buf = torch.zeros(3, device=rec.device)
    w = torch.tensor(2.0, requires_grad=True, device=rec.device)
    buf[1] = w * 3
    rec("buf", buf)
    (buf * torch.tensor([1.0, 5.0, 1.0], device=rec.device)).sum().backward()
    rec("w.grad", w.grad)


@case("An in-place op on an output of unbind or split raises: outputs of functions that return "
      "several views cannot be modified in place", doc=docs.INPLACE_CHECKS, tags=("error",),
      features=("non-scalar", "in-place"))
def multi_view_outputs_inplace_raise(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    rows = (x * 1).unbind()
    with rec.attempt("rows[0].add_(1.0) after unbind"):
        rows[0].add_(1.0)
    first, second = (x * 2).split(1)
    second.mul_(2.0)


@case("A view made under no_grad and then modified in place with grad mode on raises",
      doc=docs.NO_GRAD_MODE, tags=("error",),
      features=("non-scalar", "grad-mode", "in-place"))
def no_grad_view_modified_with_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    y = x * 2
    with torch.no_grad():
        head = y[:2]
    head.add_(1.0)


@case("An in-place op with an operand that requires grad turns a plain leaf into a non-leaf",
      doc=docs.INPLACE,
      features=("non-scalar", "in-place", "version-counter"))
def plain_leaf_becomes_nonleaf(torch, rec):
    acc = torch.zeros(2, device=rec.device)
    w = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("acc before", acc)
    acc.add_(w)
    rec("acc after acc.add_(w)", acc, version=True)
    (acc * 3).sum().backward()
    rec("w.grad", w.grad)


@case("An op with out= raises when one of its inputs requires grad", doc=docs.INPLACE_PAGE,
      tags=("error",),
      features=("non-scalar",))
def out_argument_with_requires_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    buf = torch.zeros(2, device=rec.device)
    torch.add(x, 1.0, out=buf)


@case("sigmoid_() and exp_() in place on non-leaves give the right gradients", doc=docs.INPLACE,
      features=("non-scalar", "in-place", "version-counter"))
def elementwise_inplace_gradients(torch, rec):
    x = torch.tensor([0.0, 1.0], requires_grad=True, device=rec.device)
    y = x * 1
    y.sigmoid_()
    rec("y after y.sigmoid_()", y, version=True)
    y.sum().backward()
    rec("x.grad", x.grad)
    u = torch.tensor([0.0, 0.5], requires_grad=True, device=rec.device)
    z = u * 2
    z.exp_()
    rec("z after z.exp_()", z, version=True)
    z.sum().backward()
    rec("u.grad", u.grad)


@case("An in-place op on a leaf that does not require grad is fine and bumps _version",
      doc=docs.INPLACE,
      features=("non-scalar", "in-place", "version-counter"))
def inplace_on_plain_leaf(torch, rec):
    a = torch.tensor([1.0, 2.0], device=rec.device)
    a.mul_(4.0)
    rec("a", a, version=True)


@case("resize_ on a tensor that requires grad raises", doc=docs.docstring("torch.Tensor.resize_"),
      tags=("error",),
      features=("non-scalar", "in-place"))
def resize_requires_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x.resize_(4)


@case("An in-place operation on a leaf that requires grad raises",
      doc=docs.INPLACE_PAGE, tags=("seed", "error"),
      provenance="seed 002, section 原位操作 in-place: 叶子节点不可执行 in-place 操作",
      features=("in-place", "version-counter"))
def inplace_on_leaf_raises(torch, rec):
    x = torch.tensor([2.], requires_grad=True, device=rec.device)
    rec("x", x, version=True)
    x.add_(1)


@case("sigmoid and relu save their outputs, not their inputs: changing the output in place breaks their "
      "backward, changing the input does not", doc=docs.INPLACE_CHECKS, tags=("error",),
      features=("non-scalar", "in-place", "retain-graph"))
def sigmoid_and_relu_save_their_outputs(torch, rec):
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True, device=rec.device)
    for name in ("sigmoid", "relu"):
        a = x * 1
        y = getattr(a, name)()
        a.add_(1.0)
        y.sum().backward()
        rec(f"x.grad after {name}'s input changed in place", x.grad)
        x.grad = None
        b = getattr(x * 1, name)()
        c = b * 1
        b.mul_(2.0)
        with rec.attempt(f"backward after {name}'s output changed in place"):
            c.sum().backward()


@case("x * 2 saves only the number for x's gradient: x changed in place afterwards does not break backward, "
      "x * y saves y for x's gradient", doc=docs.SAVED_TENSORS, tags=("error",),
      features=("non-scalar", "in-place"))
def product_saves_only_what_its_gradient_needs(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    a = x * 1
    y = a * 2
    a.add_(10.0)
    y.sum().backward()
    rec("x.grad", x.grad)
    w = torch.tensor([3.0, 4.0], device=rec.device)
    b = x * 1
    z = b * w
    w.add_(1.0)
    z.sum().backward()


@case("The gradient of a sum is an expanded tensor: an in-place op on it raises, as on any expanded tensor "
      "(found by the fuzzer)", doc=docs.INPLACE, tags=("error", "hard"),
      features=("non-scalar", "in-place", "views", "autograd.grad", "higher-order"))
def inplace_on_expanded_gradient_raises(torch, rec):
    x = torch.tensor([[-2.0, -2.0, -2.0]], requires_grad=True, device=rec.device)
    g, = torch.autograd.grad(x.sum(dim=0).sum(), [x], create_graph=True)
    rec("g", g)
    with rec.attempt("g.mul_(1.5)"):
        g.mul_(1.5)
    with rec.attempt("an expanded tensor: e.add_(1)"):
        e = torch.ones(3, device=rec.device).expand(2, 3)
        e.add_(1)


@case("An expand that repeats no element can be written in place: the gradient of sum(dim) over a dim of "
      "size 1 is one (found by the fuzzer)", doc=docs.INPLACE, tags=("hard",),
      features=("non-scalar", "in-place", "views", "autograd.grad", "version-counter"))
def inplace_on_expand_without_repeats(torch, rec):
    x = torch.tensor([[-2.0, -2.0, -2.0]], requires_grad=True, device=rec.device)
    g, = torch.autograd.grad(x.sum(dim=0), [x], grad_outputs=torch.tensor([-2.0, -2.0, -2.0], device=rec.device))
    g.mul_(1.5)
    rec("g", g, version=True)
    a = torch.ones(3, device=rec.device)
    b = a.expand(1, 3)
    b.add_(1)
    rec("a after b.add_(1)", a, version=True)


@case("An in-place op whose operand shares part of the written memory, or all of it with other strides, "
      "raises; the same tensor, or a view with its very layout, is allowed (found by the fuzzer)",
      doc=docs.INPLACE, tags=("error", "hard"), features=("non-scalar", "in-place", "views", "detach"))
def inplace_with_partially_overlapping_operand(torch, rec):
    x = torch.tensor([-2.0], device=rec.device)
    with rec.attempt("x.detach().add_(x[::2]): one element, other strides"):
        x.detach().add_(x[::2])
    a = torch.arange(6.0, device=rec.device)
    with rec.attempt("a[1:].add_(a[:-1]): shifted"):
        a[1:].add_(a[:-1])
    z = torch.ones(3, 3, device=rec.device)
    with rec.attempt("z.mul_(z.t())"):
        z.mul_(z.t())
    w = torch.ones(4, device=rec.device)
    w.add_(w)
    rec("w after w.add_(w)", w)
    leaf = torch.tensor([-2.0], requires_grad=True, device=rec.device)
    with rec.attempt("leaf.add_(leaf[::2]): the leaf requiring grad is named first"):
        leaf.add_(leaf[::2])


@case("An in-place op saves its tensor operands before it writes: an operand that is the written tensor "
      "(t.mul_(t)) or a view of it is at a newer version by backward, which raises (found by the fuzzer)",
      doc=docs.INPLACE_CHECKS, tags=("error", "hard"),
      features=("non-scalar", "in-place", "views", "version-counter"))
def inplace_operand_saved_before_the_write(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True, device=rec.device)
    t = x * 1
    t.mul_(t)
    with rec.attempt("t.mul_(t), then backward"):
        t.sum().backward()
    u = x * 1
    u.add_(u)
    u.sum().backward()
    rec("x.grad after u.add_(u) (add saves no operand)", x.grad)
    v = x * 1
    first, second = v[:2], v[2:]
    first.mul_(second)
    rec("second._version", second._version)
    with rec.attempt("first.mul_(second), then backward"):
        v.sum().backward()


@case("A view used as the operand of an in-place op on its base gets a grad_fn regenerated from the base's "
      "new history (found by the fuzzer)", doc=docs.INPLACE,
      features=("non-scalar", "in-place", "views", "autograd.grad", "graph-introspection", "retain-graph"))
def view_operand_of_inplace_on_its_base(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True, device=rec.device)
    t = x * 1
    first, second = t[:2], t[2:]
    first.add_(second)
    rec("second.grad_fn", second.grad_fn)
    rec("second.grad_fn.next_functions[0][0]", second.grad_fn.next_functions[0][0])
    rec("grad of second.sum() with respect to t", torch.autograd.grad(second.sum(), [t], retain_graph=True))
    empty = torch.tensor([], requires_grad=True, device=rec.device) * 1
    empty.add_(empty[::2])
    rec("grad of empty[::2].sum() with respect to empty", torch.autograd.grad(empty[::2].sum(), [empty]))


@case("An expanded tensor (elements sharing memory) can be filled in place with zero_() or fill_(number), and "
      "a part of it that repeats nothing can be written; item assignment of a slice, fill_ with a tensor and "
      "other in-place ops raise; a backward through a fill of an expanded view raises (found by the fuzzer)",
      doc=docs.INPLACE, tags=("error", "hard"), features=("non-scalar", "in-place", "views"))
def writing_an_expanded_tensor(torch, rec):
    def expanded():
        return torch.tensor([[1.0, 2.0, 3.0]], device=rec.device).expand(4, 3)

    for label, write in (("zero_()", lambda t: t.zero_()), ("fill_(2.0)", lambda t: t.fill_(2.0)),
                         ("t[0] = 0.5", lambda t: t.__setitem__(0, 0.5)), ("t[1].mul_(2)", lambda t: t[1].mul_(2)),
                         ("t[0:2] = 0.5", lambda t: t.__setitem__(slice(0, 2), 0.5)),
                         ("fill_(tensor(2.0))", lambda t: t.fill_(torch.tensor(2.0, device=rec.device))),
                         ("t[:, 0].add_(1)", lambda t: t[:, 0].add_(1))):
        t = expanded()
        with rec.attempt(label):
            write(t)
            rec(f"after {label}", t)
    for label, write in (("zero_()", lambda t: t.zero_()), ("t[0] = 0.5", lambda t: t.__setitem__(0, 0.5))):
        x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True, device=rec.device)
        t = (x * 1).expand(4, 3)
        write(t)
        with rec.attempt(f"backward after {label} on an expanded view that requires grad"):
            t.sum().backward()
            rec("x.grad", x.grad)


@case("A node saves its output whenever its formulas read it, even when only an input whose formula does not "
      "read it needs a gradient (pow's result, read for the exponent's gradient); an input read by one other "
      "input's formula alone is saved only when that input needs it (found by the fuzzer)",
      doc=docs.INPLACE, tags=("error", "hard"),
      features=("non-scalar", "in-place", "version-counter"))
def outputs_are_saved_whatever_the_inputs_need(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x = a * 1
    z = x * torch.tensor([3.0, 4.0], device=rec.device)
    x.add_(1)  # saved only for the other operand's gradient, which nothing needs
    z.sum().backward()
    rec("a.grad through x * y after x changed in place", a.grad)
    base = torch.tensor([1.7, 1.8], requires_grad=True, device=rec.device)
    powered = torch.pow(base, torch.tensor([1.4, 0.6], device=rec.device))
    powered.add_(1)
    powered.sum().backward()


@case("cosine_similarity divides the second operand by its norm before the first, so the first operand's "
      "division runs first in backward: with both operands modified in place, the version error is the "
      "first operand's (found by the fuzzer)",
      doc=docs.INPLACE, tags=("error", "hard"),
      features=("non-scalar", "in-place", "version-counter", "nn", "grad-mode"))
def cosine_similarity_checks_its_first_operand_first(torch, rec):
    a = torch.tensor([0.5, 1.0, -1.0], requires_grad=True, device=rec.device)
    b = torch.tensor([2.0, -0.4, 0.8], requires_grad=True, device=rec.device)
    similarity = torch.nn.functional.cosine_similarity(a, b, dim=0)
    with torch.no_grad():
        a.mul_(2)
        b.mul_(2)
        b.mul_(2)
    rec("versions", [a._version, b._version])
    similarity.backward()


@case("binary_cross_entropy saves its target whenever the target needs a gradient (torch's target formula "
      "takes it): the target modified in place makes backward raise, even when the input needs no gradient "
      "(found by the fuzzer)",
      doc=docs.INPLACE, tags=("error", "hard"),
      features=("non-scalar", "in-place", "version-counter", "nn", "autograd.grad", "grad-mode", "retain-graph"))
def binary_cross_entropy_saves_its_target(torch, rec):
    p = torch.tensor([0.25, 0.5, 0.75], device=rec.device)
    target = torch.tensor([0.0, 1.0, 0.5], requires_grad=True, device=rec.device)
    loss = torch.nn.functional.binary_cross_entropy(p, target)
    rec("the target's gradient", torch.autograd.grad(loss, target, retain_graph=True))
    with torch.no_grad():
        target.mul_(0.5)
    rec("target._version", target._version)
    torch.autograd.grad(loss, target)


@case("bilinear's trilinear node saves each input only for the gradients that read it (torch guards them): "
      "with only the weight needing a gradient, the weight changed in place does not make backward raise, "
      "with an input needing one too it does (found by the fuzzer)",
      doc=docs.INPLACE, tags=("error", "hard"),
      features=("non-scalar", "in-place", "version-counter", "nn", "grad-mode"))
def bilinear_saves_the_weight_only_for_the_inputs_gradients(torch, rec):
    x1 = torch.tensor([[-0.9, 1.6], [0.7, -1.8]], device=rec.device)
    x2 = torch.tensor([[-1.5, 0.7], [-0.6, 0.75]], device=rec.device)
    w = torch.tensor([[[1.4, -0.75], [-1.1, 0.3]]], requires_grad=True, device=rec.device)
    out = torch.nn.functional.bilinear(x1, x2, w)
    with torch.no_grad():
        w.mul_(2)
    out.sum().backward()
    rec("w.grad", w.grad)
    x1.requires_grad_()
    out = torch.nn.functional.bilinear(x1, x2, w)
    with torch.no_grad():
        w.mul_(2)
    out.sum().backward()
