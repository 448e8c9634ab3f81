"""The features a case needs, as test262's ``features:`` frontmatter: one vocabulary, documented.

A case declares the features it uses beyond the core (tensors that require grad, arithmetic,
``backward()``, ``.grad``). An implementation's profile lists the features it does not aim to
support; its items that need one of them are ``n/a``: listed in the reports, left out of the
scores. ``tests/test_catalog_metadata.py`` checks each case's declaration against what its
source visibly uses (``DETECTORS``); features that cannot be seen in the source (``non-scalar``
where the shape comes from a helper, say) are declared by hand.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

FEATURES: dict[str, str] = {
    "non-scalar": "tensors with other than one element (an engine of scalar values lacks them)",
    "float64": "double precision tensors",
    "integer-dtypes": "integer and bool tensors",
    "complex": "complex tensors and complex gradients",
    "float16": "half precision tensors (torch.float16)",
    "bfloat16": "brain floating point tensors (torch.bfloat16)",
    "fft": "torch.fft: discrete Fourier transforms",
    "complex32": "complex tensors of two float16 parts (torch.complex32, ComplexHalf, experimental in torch): the "
                 "float16 items of the operators that build complex values from real ones",
    "autograd.grad": "torch.autograd.grad",
    "backward-inputs": "backward(inputs=...)",
    "higher-order": "create_graph=True: gradients that are themselves differentiable",
    "forward-ad": "forward-mode AD: torch.autograd.forward_ad (dual levels, make_dual, unpack_dual), "
                  "custom Functions' jvp, and torch.func's forward-mode transforms (jvp, linearize, jacfwd, hessian)",
    "func-transforms": "torch.func's function transforms (grad, grad_and_value, vjp, jvp, linearize, vmap, jacrev, "
                       "jacfwd, hessian); grad, grad_and_value and vjp need no other feature",
    "vmap": "torch.func.vmap and what is built on it (jacrev, jacfwd, hessian; autograd.functional's vectorize=True)",
    "functional-call": "torch.func.functional_call and stack_module_state: a module run with other parameters "
                       "and buffers (no transform needed)",
    "functionalize": "torch.func.functionalize: a function's mutations and views run as out-of-place operations",
    "retain-graph": "retain_graph=True and the errors of a second backward through a freed graph",
    "retain-grad": "Tensor.retain_grad() and Tensor.retains_grad",
    "grad-mode": "torch.no_grad, enable_grad, set_grad_enabled, is_grad_enabled",
    "inference-mode": "torch.inference_mode and inference tensors",
    "in-place": "in-place operations (add_, mul_, ...) and their checks",
    "version-counter": "Tensor._version and the saved-tensor version checks",
    "views": "views of tensors (view, slicing, transpose, expand) and Tensor._base",
    "detach": "Tensor.detach(), detach_() and .data",
    "hooks": "tensor hooks, node hooks and post-accumulate-grad hooks",
    "saved-tensor-hooks": "torch.autograd.graph.saved_tensors_hooks and the contexts built on it (save_on_cpu, "
                          "allow_mutation_on_saved_tensors, disable_saved_tensors_hooks)",
    "gradient-edges": "torch.autograd.graph.GradientEdge and get_gradient_edge: autograd.grad and backward(inputs=) "
                      "with respect to an edge of the graph",
    "custom-function": "torch.autograd.Function subclasses",
    "graph-introspection": "grad_fn.name(), next_functions, _saved_* attributes and node metadata",
    "anomaly": "torch.autograd.detect_anomaly and set_detect_anomaly",
    "printing": "print() and repr() of tensors and nodes",
    "nn": "torch.nn modules, parameters and torch.nn.functional",
    "optim": "torch.optim optimizers",
    "numpy-interop": "Tensor.numpy() and torch.from_numpy",
    "cuda": "a CUDA device",
    "checkpoint": "torch.utils.checkpoint: activation checkpointing (checkpoint, checkpoint_sequential, their helpers)",
    "op-dispatch": "torch.ops.aten's operator overloads and per-op interception (selective checkpointing's policies "
                   "see and save each aten op)",
}

# Feature -> a pattern whose presence in a case's source shows the feature is used.
DETECTORS: dict[str, re.Pattern] = {
    "non-scalar": re.compile(
        r"tensor\(\s*\[[^\[\]]*,|tensor\(\s*\[\s*\[|\b(?:ones|zeros|randn|rand|empty|full|eye)\(\s*\(?\s*[2-9]"
        r"|\b(?:arange|linspace|stack|cat|meshgrid)\(|\.(?:expand|view|reshape|repeat|unsqueeze|t)\("
        r"|\bnn\.Linear\(|tensor\(\s*\[\s*\]|\b(?:ones|zeros|randn|rand|empty)\(\s*0\b"),
    "integer-dtypes": re.compile(r"\bint(?:8|16|32|64)\b|torch\.long\b|torch\.bool\b|\.long\(\)|\.int\(\)"
                                 r"|\.bool\(\)|torch\.uint8"),
    "in-place": re.compile(r"\.(?!requires_grad_\()[a-z][a-z0-9_]*_\(|[^=!<>]\s*[-+*/]=\s|\]\s*=[^=]"),
    "float64": re.compile(r"float64|\.double\(|torch\.double\b"),
    "complex": re.compile(r"complex|\bcfloat\b|1j\b"),
    "float16": re.compile(r"\bfloat16\b|\.half\(|torch\.half\b"),
    "bfloat16": re.compile(r"\bbfloat16\b"),
    "fft": re.compile(r"\bfft\.|\bfft\b\("),
    "autograd.grad": re.compile(r"autograd\.grad\("),
    "backward-inputs": re.compile(r"backward\([^)]*\binputs="),
    "higher-order": re.compile(r"create_graph\s*=\s*True"),
    "forward-ad": re.compile(r"\bforward_ad\b|save_for_forward\(|\bdef jvp\(|\bfunc\.(?:jvp|linearize|jacfwd|hessian)\b"
                            r"|[\"']forward-mode[\"']"),
    "func-transforms": re.compile(r"\bfunc\.(?:grad|grad_and_value|vjp|jvp|linearize|vmap|jacrev|jacfwd|hessian)\b"),
    "vmap": re.compile(r"\bfunc\.(?:vmap|jacrev|jacfwd|hessian)\b|vectorize\s*=\s*True"),
    "functional-call": re.compile(r"\bfunc\.(?:functional_call|stack_module_state)\b"),
    "functionalize": re.compile(r"\bfunc\.functionalize\b"),
    "retain-graph": re.compile(r"retain_graph\s*=\s*True"),
    "retain-grad": re.compile(r"retain_grad\(|retains_grad"),
    "grad-mode": re.compile(r"no_grad\(|enable_grad\(|set_grad_enabled\(|is_grad_enabled\("),
    "inference-mode": re.compile(r"inference_mode|is_inference"),
    "version-counter": re.compile(r"_version\b|version=True"),
    "views": re.compile(r"\._base\b|\.view\(|\.unfold\(|\.expand\(|\bas_strided\b|_is_view\("),
    "detach": re.compile(r"\.detach\(|\.detach_\(|\.data\b"),
    "hooks": re.compile(r"register_(post_accumulate_grad_)?hook\(|register_prehook\("),
    "saved-tensor-hooks": re.compile(r"saved_tensors_hooks|save_on_cpu|allow_mutation_on_saved_tensors"),
    "gradient-edges": re.compile(r"get_gradient_edge|GradientEdge"),
    "custom-function": re.compile(r"autograd\.Function\b|once_differentiable"),
    "graph-introspection": re.compile(r"next_functions|\._saved_|\.metadata\b|\.name\(\)"),
    "anomaly": re.compile(r"detect_anomaly|set_detect_anomaly"),
    "printing": re.compile(r"\bprint\(|\brepr\(|\bstr\("),
    "nn": re.compile(r"torch\.nn\b"),
    "optim": re.compile(r"torch\.optim\b"),
    "numpy-interop": re.compile(r"\.numpy\(|from_numpy\("),
    "cuda": re.compile(r"['\"]cuda['\"]|\.cuda\("),
    "checkpoint": re.compile(r"\butils\.checkpoint\b"),
    "op-dispatch": re.compile(r"\bops\.aten\b"),
}


#: The feature an item needs for the dtype it runs in (a case that runs in several dtypes, as the operator
#: cases do, needs it only in its items of that dtype: ``item.Item.features``). float32 and float64 need none
#: beyond the case's own.
DTYPE_FEATURES: dict[str, str] = {"complex64": "complex", "complex128": "complex", "float16": "float16",
                                  "bfloat16": "bfloat16"}


def of_dtype(dtype: str, of_case: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """The features an item needs because of the dtype it runs in (``DTYPE_FEATURES``), and those its case
    declares for that dtype (``of_case``: ``Case.dtype_features``, as ``complex32`` for ``torch.complex`` of
    float16 parts)."""
    general = (DTYPE_FEATURES[dtype],) if dtype in DTYPE_FEATURES else ()
    return (*general, *(of_case or {}).get(dtype, ()))


class UnknownFeature(ValueError):
    """A feature name outside the vocabulary."""


def check_names(names, where: str) -> tuple[str, ...]:
    """The names as a tuple, or UnknownFeature naming the first unknown one and ``where`` it is."""
    names = tuple(names)
    for name in names:
        if name not in FEATURES:
            raise UnknownFeature(f"{where}: unknown feature {name!r}; known: {', '.join(FEATURES)}")
    return names


def detected(source: str) -> set[str]:
    """The features a scenario's source visibly uses."""
    return {name for name, pattern in DETECTORS.items() if pattern.search(source)}
