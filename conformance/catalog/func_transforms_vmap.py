"""torch.func's ``vmap`` and its utilities for modules: ``functional_call``, ``stack_module_state``,
``replace_all_batch_norm_modules_``, and the rest of ``torch.func.__all__`` (``functionalize``,
``rearrange``, ``debug_unwrap``).

``vmap`` runs a function written for one sample over a batch: ``in_dims`` says which dimension of
each argument is the batch (``None``: not batched), ``out_dims`` where the batch goes in each output,
both following the arguments' nesting; ``chunk_size`` splits the batch; ``randomness`` says what random
operations do. Model ensembling (``stack_module_state`` and ``functional_call`` under ``vmap``) is
here too. The differentiation transforms are the topic ``func_transforms``.
"""

from .. import docs
from ..case import case

# -- vmap: in_dims, out_dims, chunk_size -------------------------------------------------------

@case("vmap(f) maps f over dimension 0 of its arguments: a batched dot product, and in_dims=(0, None) "
      "for an argument shared by every sample", doc=docs.FUNC_VMAP,
      features=("non-scalar", "func-transforms", "vmap"))
def vmap_over_the_first_dimension(torch, rec):
    func = torch.func
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=rec.device)
    b = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]], device=rec.device)
    shared = torch.tensor([10.0, 100.0], device=rec.device)
    rec("vmap(torch.dot)(a, b)", func.vmap(torch.dot)(a, b))
    rec("vmap(torch.dot, in_dims=(0, None))(a, shared)", func.vmap(torch.dot, in_dims=(0, None))(a, shared))
    rec("vmap(lambda t: t.sum())(a): one scalar per sample", func.vmap(lambda t: t.sum())(a))


@case("in_dims and out_dims pick the batch dimension of each input and output: in_dims=1 maps over "
      "columns, out_dims=1 puts the batch second, a tuple of out_dims per output and None for an output "
      "that is not batched", doc=docs.FUNC_VMAP,
      features=("non-scalar", "func-transforms", "vmap"))
def vmap_in_dims_and_out_dims(torch, rec):
    func = torch.func
    m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=rec.device)
    rec("vmap(lambda c: c * 2, in_dims=1)(m)", func.vmap(lambda c: c * 2, in_dims=1)(m))
    rec("vmap(lambda c: c * 2, in_dims=1, out_dims=1)(m)", func.vmap(lambda c: c * 2, in_dims=1, out_dims=1)(m))
    rec("vmap(lambda r: r.cumsum(0), in_dims=-2)(m)", func.vmap(lambda r: r.cumsum(0), in_dims=-2)(m))
    both = func.vmap(lambda r: (r.sum(), r.flip(0)), out_dims=(0, 1))(m)
    rec("out_dims=(0, 1) for two outputs", both)
    unbatched = func.vmap(lambda r, k: (r * k, k), in_dims=(0, None), out_dims=(0, None))(
        m, torch.tensor(3.0, device=rec.device))
    rec("out_dims=(0, None): the second output once", unbatched)


@case("in_dims follows the nesting of the arguments: a dict argument takes a dict of in_dims, a tuple "
      "argument a tuple, and a dict or list output comes back with every tensor batched",
      doc=docs.FUNC_VMAP, features=("non-scalar", "func-transforms", "vmap"))
def vmap_nested_containers(torch, rec):
    func = torch.func
    inputs = {"x": torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=rec.device),
              "scale": torch.tensor([2.0, -1.0], device=rec.device)}
    pair = (torch.tensor([1.0, 2.0, 3.0], device=rec.device), torch.tensor([[0.5, 0.5, 0.5]], device=rec.device))

    def f(d, p):
        return {"scaled": d["x"] * d["scale"] + p[0], "rows": [p[1].sum(), d["x"].max()]}

    out = func.vmap(f, in_dims=({"x": 0, "scale": None}, (0, 1)))(inputs, pair)
    rec("vmap(f, in_dims=({'x': 0, 'scale': None}, (0, 1)))", out)


@case("chunk_size splits the batch: f runs once per chunk (batch 5, chunk_size=2: three calls, chunk_size=1: "
      "five) and the result is the same as without chunks", doc=docs.FUNC_VMAP,
      features=("non-scalar", "func-transforms", "vmap"))
def vmap_chunk_size(torch, rec):
    func = torch.func
    batch = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [9.0, 10.0]], device=rec.device)
    calls = []

    def f(row):
        calls.append(1)
        return row.sin() * row[0]

    rec("vmap(f)(batch)", func.vmap(f)(batch))
    rec("calls without chunk_size", len(calls))
    for chunk_size in (2, 1):
        calls.clear()
        rec(f"vmap(f, chunk_size={chunk_size})(batch)", func.vmap(f, chunk_size=chunk_size)(batch))
        rec(f"calls with chunk_size={chunk_size}", len(calls))


@case("vmap of vmap maps over two dimensions: the outer product of two vectors", doc=docs.FUNC_VMAP,
      features=("non-scalar", "func-transforms", "vmap"))
def nested_vmap(torch, rec):
    func = torch.func
    a = torch.tensor([1.0, 2.0, 3.0], device=rec.device)
    b = torch.tensor([10.0, -1.0], device=rec.device)
    outer = func.vmap(func.vmap(torch.mul, in_dims=(None, 0)), in_dims=(0, None))(a, b)
    rec("vmap(vmap(mul, in_dims=(None, 0)), in_dims=(0, None))(a, b)", outer)


# -- vmap: errors and randomness ---------------------------------------------------------------

@case("vmap refuses arguments whose batch dimensions differ in size, an in_dim beyond an argument's "
      "dimensions, in_dims of another structure than the arguments, and an output that is not a tensor",
      doc=docs.FUNC_VMAP, tags=("error",), features=("non-scalar", "func-transforms", "vmap"))
def vmap_of_mismatched_batches_raises(torch, rec):
    func = torch.func
    two = torch.ones(2, 3, device=rec.device)
    three = torch.ones(3, 3, device=rec.device)
    with rec.attempt("vmap(torch.add)(batch of 2, batch of 3)"):
        func.vmap(torch.add)(two, three)
    with rec.attempt("vmap(f, in_dims=2)(a 2-d tensor)"):
        func.vmap(lambda t: t, in_dims=2)(two)
    with rec.attempt("vmap(f, in_dims=(0,))(two arguments)"):
        func.vmap(lambda s, t: s, in_dims=(0,))(two, two)
    with rec.attempt("vmap(lambda t: 'text')(batch)"):
        func.vmap(lambda t: "text")(two)


@case("Writing a batched value in place into a tensor that is not batched raises (add_ as a broadcast "
      "error, copy_ and mul_ with vmap's own message); into a batched one it works", doc=docs.VMAP_INPLACE,
      tags=("error",), features=("non-scalar", "func-transforms", "vmap", "in-place"))
def vmap_inplace_into_an_unbatched_tensor_raises(torch, rec):
    func = torch.func
    batched = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=rec.device)
    with rec.attempt("vmap(Tensor.add_, in_dims=(None, 0))(unbatched, batched)"):
        func.vmap(lambda a, b: a.add_(b), in_dims=(None, 0))(torch.zeros(2, device=rec.device), batched)
    with rec.attempt("vmap(Tensor.copy_, in_dims=(None, 0))(unbatched, batched)"):
        func.vmap(lambda a, b: a.copy_(b), in_dims=(None, 0))(torch.zeros(2, device=rec.device), batched)
    with rec.attempt("vmap(Tensor.mul_, in_dims=(None, 0))(unbatched, batched)"):
        func.vmap(lambda a, b: a.mul_(b), in_dims=(None, 0))(torch.zeros(2, device=rec.device), batched)
    target = torch.zeros(3, 2, device=rec.device)
    rec("vmap(Tensor.add_, in_dims=(0, None))(batched, unbatched)",
        func.vmap(lambda a, b: a.add_(b), in_dims=(0, None))(target, torch.tensor([1.0, -1.0], device=rec.device)))
    rec("the batched target afterwards", target)


@case("randomness='error' (the default) makes a random operation under vmap raise; 'same' gives every "
      "sample the same random values, 'different' different ones; another value is refused",
      doc=docs.VMAP_RANDOMNESS, tags=("error",),
      features=("non-scalar", "func-transforms", "vmap"))
def vmap_randomness(torch, rec):
    func = torch.func
    zeros = torch.zeros(4, 3, device=rec.device)

    def noisy(row):
        return row + torch.rand(3, device=rec.device)

    with rec.attempt("vmap(noisy)(zeros)"):
        func.vmap(noisy)(zeros)
    same = func.vmap(noisy, randomness="same")(zeros)
    rec("randomness='same': shape", same.shape)
    rec("randomness='same': every row equals the first", all(torch.equal(row, same[0]) for row in same))
    different = func.vmap(noisy, randomness="different")(zeros)
    rec("randomness='different': shape", different.shape)
    rec("randomness='different': no two rows equal",
        all(not torch.equal(different[i], different[j]) for i in range(4) for j in range(i)))
    with rec.attempt("vmap(noisy, randomness='sometimes')(zeros)"):
        func.vmap(noisy, randomness="sometimes")(zeros)


@case("debug_unwrap inside vmap shows the tensor under the batching wrapper, with the batch dimension; "
      "outside a transform it returns the tensor itself",
      doc=docs.docstring("torch.func.debug_unwrap"),
      features=("non-scalar", "func-transforms", "vmap"))
def debug_unwrap_inside_vmap(torch, rec):
    func = torch.func
    batch = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=rec.device)

    def f(row):
        rec("row.shape inside vmap", row.shape)
        rec("debug_unwrap(row) inside vmap", func.debug_unwrap(row))
        return row * 2

    func.vmap(f)(batch)
    rec("debug_unwrap(batch) is batch outside any transform", func.debug_unwrap(batch) is batch)


@case("rearrange applies an einops pattern (transposing, merging and splitting dimensions), per sample "
      "under vmap too", doc=docs.docstring("torch.func.rearrange"),
      features=("non-scalar", "func-transforms", "vmap"))
def rearrange_patterns(torch, rec):
    func = torch.func
    x = torch.arange(12.0, device=rec.device).reshape(2, 3, 2)
    rec("rearrange(x, 'a b c -> c a b')", func.rearrange(x, "a b c -> c a b"))
    rec("rearrange(x, 'a b c -> a (b c)')", func.rearrange(x, "a b c -> a (b c)"))
    rec("rearrange(x, 'a (h w) c -> a h w c', h=3)", func.rearrange(x, "a (h w) c -> a h w c", h=3))
    rec("vmap(lambda s: rearrange(s, 'b c -> c b'))(x)", func.vmap(lambda s: func.rearrange(s, "b c -> c b"))(x))


# -- modules -----------------------------------------------------------------------------------

def _affine_modules(torch, device, count=1):
    """``count`` modules of one class, each with a parameter and a buffer: out = weight * x + shift."""

    class Affine(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.tensor([1.0, 2.0], device=device))
            self.register_buffer("shift", torch.tensor([0.5, -0.5], device=device))

        def forward(self, x):
            return self.weight * x + self.shift

    return [Affine() for _ in range(count)]


@case("functional_call runs a module with the parameters and buffers given by name (a dict, or a tuple of "
      "dicts) in place of its own, which stay as they were", doc=docs.FUNC_FUNCTIONAL_CALL,
      features=("non-scalar", "functional-call", "nn"))
def functional_call_with_parameters_and_buffers(torch, rec):
    func = torch.func
    (model,) = _affine_modules(torch, rec.device)
    x = torch.tensor([3.0, 4.0], device=rec.device)
    rec("model(x)", model(x))
    weight = torch.tensor([10.0, 20.0], device=rec.device)
    shift = torch.tensor([0.0, 100.0], device=rec.device)
    rec("functional_call(model, {'weight': w}, (x,))", func.functional_call(model, {"weight": weight}, (x,)))
    rec("functional_call(model, {'weight': w, 'shift': s}, x)",
        func.functional_call(model, {"weight": weight, "shift": shift}, x))
    rec("functional_call(model, ({'weight': w}, {'shift': s}), (x,))",
        func.functional_call(model, ({"weight": weight}, {"shift": shift}), (x,)))
    rec("functional_call with kwargs={'x': x}", func.functional_call(model, {"shift": shift}, (), {"x": x}))
    rec("model.weight afterwards", model.weight)
    rec("model.shift afterwards", model.shift)


@case("functional_call with strict=True raises for a missing or unexpected key; without strict, a missing "
      "parameter keeps the module's own", doc=docs.FUNC_FUNCTIONAL_CALL, tags=("error",),
      features=("non-scalar", "functional-call", "nn"))
def functional_call_strict(torch, rec):
    func = torch.func
    (model,) = _affine_modules(torch, rec.device)
    x = torch.tensor([3.0, 4.0], device=rec.device)
    weight = torch.tensor([10.0, 20.0], device=rec.device)
    rec("strict=False, only the weight", func.functional_call(model, {"weight": weight}, (x,), strict=False))
    with rec.attempt("strict=True, only the weight"):
        func.functional_call(model, {"weight": weight}, (x,), strict=True)
    with rec.attempt("strict=True, an unexpected key"):
        func.functional_call(model, {"weight": weight, "shift": x, "extra": x}, (x,), strict=True)


@case("functional_call with tied weights: a value given for one name of a tied parameter is used for "
      "both (tie_weights=True, the default); with tie_weights=False only for the name given",
      doc=docs.FUNC_FUNCTIONAL_CALL, features=("non-scalar", "functional-call", "nn", "grad-mode", "in-place"))
def functional_call_tied_weights(torch, rec):
    func = torch.func

    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encode = torch.nn.Linear(2, 2, bias=False)
            self.decode = torch.nn.Linear(2, 2, bias=False)
            self.decode.weight = self.encode.weight

        def forward(self, x):
            return self.decode(self.encode(x))

    model = Tied().to(rec.device)
    with torch.no_grad():
        model.encode.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0]], device=rec.device))
    x = torch.tensor([1.0, 2.0], device=rec.device)
    doubled = {"encode.weight": torch.tensor([[2.0, 0.0], [0.0, 2.0]], device=rec.device)}
    rec("named_parameters() lists the tied weight once", [name for name, _ in model.named_parameters()])
    rec("tie_weights=True (default)", func.functional_call(model, doubled, (x,)))
    rec("tie_weights=False", func.functional_call(model, doubled, (x,), tie_weights=False))


@case("grad through functional_call differentiates a module's loss with respect to a dict of parameters "
      "and returns a dict of gradients", doc=docs.FUNC_FUNCTIONAL_CALL,
      features=("non-scalar", "functional-call", "func-transforms", "nn", "detach"))
def grad_through_functional_call(torch, rec):
    func = torch.func
    (model,) = _affine_modules(torch, rec.device)
    params = {name: p.detach() for name, p in model.named_parameters()}
    x = torch.tensor([3.0, 4.0], device=rec.device)
    gradients = func.grad(lambda p: (func.functional_call(model, p, (x,)) ** 2).sum())(params)
    rec("gradients", gradients)


@case("stack_module_state stacks the parameters and buffers of several modules of one kind along a new "
      "first dimension; the stacked parameters are new leaves that require grad",
      doc=docs.FUNC_STACK_MODULE_STATE,
      features=("non-scalar", "functional-call", "nn", "grad-mode", "in-place"))
def stack_module_state_stacks(torch, rec):
    func = torch.func
    models = _affine_modules(torch, rec.device, 3)
    for index, model in enumerate(models):
        with torch.no_grad():
            model.weight.mul_(index + 1)
            model.shift.add_(index)
    params, buffers = func.stack_module_state(models)
    rec("params", params)
    rec("buffers", buffers)
    rec("params['weight'].is_leaf", params["weight"].is_leaf)


@case("Model ensembling: vmap over functional_call with stacked parameters runs every model on the same "
      "input (in_dims=(0, 0, None)) or each on its own", doc=docs.note(
          "using-vmap-to-vectorize-the-ensemble", "Using vmap to vectorize the ensemble",
          page=docs.ENSEMBLING_TUTORIAL),
      features=("non-scalar", "functional-call", "func-transforms", "vmap", "nn", "grad-mode", "in-place"))
def ensemble_with_vmap(torch, rec):
    func = torch.func
    models = _affine_modules(torch, rec.device, 3)
    for index, model in enumerate(models):
        with torch.no_grad():
            model.weight.add_(index)
    params, buffers = func.stack_module_state(models)

    def run(p, b, x):
        return func.functional_call(models[0], (p, b), (x,))

    x = torch.tensor([1.0, -1.0], device=rec.device)
    rec("the same input for every model", func.vmap(run, in_dims=(0, 0, None))(params, buffers, x))
    each = torch.tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], device=rec.device)
    rec("one input per model", func.vmap(run)(params, buffers, each))


@case("replace_all_batch_norm_modules_ makes every batch norm stop tracking running statistics (their "
      "buffers become None) so that the model can run under vmap", doc=docs.docstring(
          "torch.func.replace_all_batch_norm_modules_"),
      features=("non-scalar", "func-transforms", "vmap", "nn", "in-place"))
def replace_all_batch_norm_modules(torch, rec):
    func = torch.func
    model = torch.nn.Sequential(torch.nn.BatchNorm1d(2, affine=False)).to(rec.device)
    rec("returns the module itself", func.replace_all_batch_norm_modules_(model) is model)
    norm = model[0]
    rec("running_mean, running_var, num_batches_tracked",
        (norm.running_mean, norm.running_var, norm.num_batches_tracked))
    rec("track_running_stats", norm.track_running_stats)
    batches = torch.tensor([[[1.0, 2.0], [3.0, 6.0]], [[0.0, 0.0], [2.0, -2.0]]], device=rec.device)
    rec("vmap(model)(two batches of two)", func.vmap(model)(batches))


# -- functionalize -----------------------------------------------------------------------------

@case("functionalize(f) computes what f computes with its in-place operations and views replaced, and "
      "still writes f's mutations of its inputs back into them", doc=docs.docstring("torch.func.functionalize"),
      features=("non-scalar", "functionalize", "in-place", "views"))
def functionalize_keeps_results_and_input_mutations(torch, rec):
    func = torch.func

    def f(t):
        y = t.clone()
        y.view(-1)[0].add_(10)
        t.mul_(2)
        return y * t

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device)
    rec("functionalize(f)(x)", func.functionalize(f)(x))
    rec("x afterwards: doubled", x)
