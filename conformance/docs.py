"""References to the PyTorch documentation that catalog cases cite.

Two kinds of reference exist:

* ``note(anchor, title)``: a section of a documentation page, e.g. the "Autograd mechanics"
  note, cited by its HTML anchor;
* ``docstring("torch.Tensor.is_leaf")``: the docstring of a public object, cited by its dotted
  path. A test checks that every such path resolves in the installed torch and has a docstring.

Sections are of the documentation (``DOCS_ROOT``) or, where only a tutorial documents a behaviour,
of a tutorial (``TUTORIALS_ROOT``: the forward-mode AD tutorial's usage with modules, and torch.func's
tutorials on per-sample gradients, model ensembling, Jacobians and Hessians).

The constants below are the references the catalog uses most; cases may build others.
"""

from __future__ import annotations

from .case import Doc

DOCS_ROOT = "https://pytorch.org/docs/stable"
AUTOGRAD_NOTES = f"{DOCS_ROOT}/notes/autograd.html"
AUTOGRAD_PAGE = f"{DOCS_ROOT}/autograd.html"
EXTENDING_NOTES = f"{DOCS_ROOT}/notes/extending.html"
TUTORIALS_ROOT = "https://pytorch.org/tutorials"
FORWARD_AD_TUTORIAL = f"{TUTORIALS_ROOT}/intermediate/forward_ad_usage.html"
FUNC_API = f"{DOCS_ROOT}/func.api.html"
FUNC_UX_LIMITATIONS = f"{DOCS_ROOT}/func.ux_limitations.html"
PER_SAMPLE_GRADS_TUTORIAL = f"{TUTORIALS_ROOT}/intermediate/per_sample_grads.html"
ENSEMBLING_TUTORIAL = f"{TUTORIALS_ROOT}/intermediate/ensembling.html"
JACOBIANS_HESSIANS_TUTORIAL = f"{TUTORIALS_ROOT}/intermediate/jacobians_hessians.html"

DOCSTRING_PREFIX = "docstring of "


PAGE_TITLES = {
    AUTOGRAD_NOTES: "Autograd mechanics",
    AUTOGRAD_PAGE: "Automatic differentiation package - torch.autograd",
    EXTENDING_NOTES: "Extending PyTorch",
    FORWARD_AD_TUTORIAL: "Forward-mode Automatic Differentiation (tutorial)",
    FUNC_API: "torch.func API Reference",
    FUNC_UX_LIMITATIONS: "torch.func UX Limitations",
    PER_SAMPLE_GRADS_TUTORIAL: "Per-sample-gradients (tutorial)",
    ENSEMBLING_TUTORIAL: "Model ensembling (tutorial)",
    JACOBIANS_HESSIANS_TUTORIAL: "Jacobians, Hessians, hvp, vhp, and more: composing function transforms (tutorial)",
    f"{DOCS_ROOT}/notes/broadcasting.html": "Broadcasting semantics",
    f"{DOCS_ROOT}/tensor_view.html": "Tensor Views",
}


def note(anchor: str, title: str, page: str = AUTOGRAD_NOTES) -> Doc:
    """A section of a documentation page, by anchor."""
    page_title = PAGE_TITLES.get(page) or page.rsplit("/", 1)[-1].removesuffix(".html").replace("_", " ").capitalize()
    return Doc(url=f"{page}#{anchor}", section=f"{page_title} \u203a {title}")


def docstring(path: str) -> Doc:
    """The docstring of a public torch object, named by its dotted path."""
    return Doc(url=f"{DOCS_ROOT}/generated/{path}.html", section=f"{DOCSTRING_PREFIX}{path}")


def docstring_path(doc: Doc) -> str | None:
    """The dotted path a docstring reference names, or None for a section reference."""
    if doc.section.startswith(DOCSTRING_PREFIX):
        return doc.section[len(DOCSTRING_PREFIX):]
    return None


# Autograd mechanics (docs/source/notes/autograd.rst)
REQUIRES_GRAD = note("setting-requires-grad", "Setting requires_grad")
GRAD_MODES = note("locally-disabling-gradient-computation", "Locally disabling gradient computation")
NO_GRAD_MODE = note("no-grad-mode", "No-grad Mode")
INFERENCE_MODE = note("inference-mode", "Inference Mode")
INPLACE = note("in-place-operations-with-autograd", "In-place operations with autograd")
INPLACE_CHECKS = note("in-place-correctness-checks", "In-place correctness checks")
SAVED_TENSORS = note("saved-tensors", "Saved tensors")
SAVED_TENSOR_HOOKS = note("hooks-for-saved-tensors", "Hooks for saved tensors")
NONDIFFERENTIABLE = note(
    "gradients-for-non-differentiable-functions", "Gradients for non-differentiable functions"
)
COMPLEX = note("autograd-for-complex-numbers", "Autograd for Complex Numbers")
BACKWARD_HOOKS = note("backward-hooks-execution", "Backward Hooks execution")
HOOKS_INPLACE = note(
    "behavior-of-tensor-hooks-when-tensor-is-modified-in-place",
    "Behavior of Tensor hooks when Tensor is modified in-place",
)
HISTORY = note("how-autograd-encodes-the-history", "How autograd encodes the history")

# torch.autograd package page (docs/source/autograd.md)
GRAD_LAYOUTS = note("default-gradient-layouts", "Default gradient layouts", AUTOGRAD_PAGE)
AUTOGRAD_GRAPH = note("autograd-graph", "Autograd graph", AUTOGRAD_PAGE)
VARIABLE_DEPRECATED = note("variable-deprecated", "Variable (deprecated)", AUTOGRAD_PAGE)
INPLACE_PAGE = note("in-place-operations-on-tensors", "In-place operations on Tensors", AUTOGRAD_PAGE)
ANOMALY = note("anomaly-detection", "Anomaly detection", AUTOGRAD_PAGE)
FUNCTIONAL_API = note("functional-higher-level-api", "Functional higher level API", AUTOGRAD_PAGE)
FORWARD_AD = note("forward-mode-automatic-differentiation", "Forward-mode Automatic Differentiation", AUTOGRAD_PAGE)

# torch.func (docs/source/func.api.rst, func.ux_limitations.rst)
VMAP_INPLACE = note("mutation-in-place-pytorch-operations", "Mutation: in-place PyTorch Operations",
                    FUNC_UX_LIMITATIONS)
VMAP_RANDOMNESS = note("randomness", "Randomness", FUNC_UX_LIMITATIONS)
FUNC_GRAD = docstring("torch.func.grad")
FUNC_GRAD_AND_VALUE = docstring("torch.func.grad_and_value")
FUNC_VJP = docstring("torch.func.vjp")
FUNC_JVP = docstring("torch.func.jvp")
FUNC_LINEARIZE = docstring("torch.func.linearize")
FUNC_VMAP = docstring("torch.func.vmap")
FUNC_JACREV = docstring("torch.func.jacrev")
FUNC_JACFWD = docstring("torch.func.jacfwd")
FUNC_HESSIAN = docstring("torch.func.hessian")
FUNC_FUNCTIONAL_CALL = docstring("torch.func.functional_call")
FUNC_STACK_MODULE_STATE = docstring("torch.func.stack_module_state")

# Extending PyTorch (docs/source/notes/extending.rst)
EXTENDING_AUTOGRAD = note("extending-torch-autograd", "Extending torch.autograd", EXTENDING_NOTES)
EXTENDING_FORWARD_AD = note("forward-mode-ad", "Forward mode AD", EXTENDING_NOTES)

# Docstrings
TENSOR_IS_LEAF = docstring("torch.Tensor.is_leaf")
TENSOR_GRAD = docstring("torch.Tensor.grad")
TENSOR_REQUIRES_GRAD = docstring("torch.Tensor.requires_grad")
TENSOR_REQUIRES_GRAD_ = docstring("torch.Tensor.requires_grad_")
TENSOR_RETAIN_GRAD = docstring("torch.Tensor.retain_grad")
TENSOR_RETAINS_GRAD = docstring("torch.Tensor.retains_grad")
TENSOR_BACKWARD = docstring("torch.Tensor.backward")
TENSOR_DETACH = docstring("torch.Tensor.detach")
TENSOR_DETACH_ = docstring("torch.Tensor.detach_")
TENSOR_REGISTER_HOOK = docstring("torch.Tensor.register_hook")
TENSOR_POST_ACCUMULATE_HOOK = docstring("torch.Tensor.register_post_accumulate_grad_hook")
TENSOR_ITEM = docstring("torch.Tensor.item")
TENSOR_NUMPY = docstring("torch.Tensor.numpy")
AUTOGRAD_BACKWARD = docstring("torch.autograd.backward")
AUTOGRAD_GRAD = docstring("torch.autograd.grad")
AUTOGRAD_FUNCTION = docstring("torch.autograd.Function")
FUNCTION_CTX_MARK_DIRTY = docstring("torch.autograd.function.FunctionCtx.mark_dirty")
FUNCTION_CTX_MARK_NON_DIFFERENTIABLE = docstring(
    "torch.autograd.function.FunctionCtx.mark_non_differentiable"
)
FUNCTION_CTX_SAVE_FOR_BACKWARD = docstring("torch.autograd.function.FunctionCtx.save_for_backward")
FUNCTION_CTX_SET_MATERIALIZE_GRADS = docstring(
    "torch.autograd.function.FunctionCtx.set_materialize_grads"
)
NO_GRAD = docstring("torch.no_grad")
ENABLE_GRAD = docstring("torch.enable_grad")
SET_GRAD_ENABLED = docstring("torch.set_grad_enabled")
INFERENCE_MODE_DOC = docstring("torch.inference_mode")
DETECT_ANOMALY = docstring("torch.autograd.detect_anomaly")
SET_DETECT_ANOMALY = docstring("torch.autograd.set_detect_anomaly")
OPTIMIZER_ZERO_GRAD = docstring("torch.optim.Optimizer.zero_grad")
MODULE_ZERO_GRAD = docstring("torch.nn.Module.zero_grad")
PARAMETER = docstring("torch.nn.parameter.Parameter")
NODE_REGISTER_HOOK = docstring("torch.autograd.graph.Node.register_hook")
NODE_REGISTER_PREHOOK = docstring("torch.autograd.graph.Node.register_prehook")
NODE_NAME = docstring("torch.autograd.graph.Node.name")
NODE_METADATA = docstring("torch.autograd.graph.Node.metadata")
MULTI_GRAD_HOOK = docstring("torch.autograd.graph.register_multi_grad_hook")
SAVED_TENSORS_HOOKS = docstring("torch.autograd.graph.saved_tensors_hooks")
SET_PRINTOPTIONS = docstring("torch.set_printoptions")
FUNCTIONAL_JACOBIAN = docstring("torch.autograd.functional.jacobian")
FUNCTIONAL_HESSIAN = docstring("torch.autograd.functional.hessian")
FUNCTIONAL_VJP = docstring("torch.autograd.functional.vjp")
FUNCTIONAL_JVP = docstring("torch.autograd.functional.jvp")
FUNCTIONAL_HVP = docstring("torch.autograd.functional.hvp")
FUNCTIONAL_VHP = docstring("torch.autograd.functional.vhp")
