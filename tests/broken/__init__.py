"""Deliberately broken implementations, for the harness's self-tests.

Each module here is an implementation under test (``--impl tests.broken.<name>``) that behaves
like torch except for ONE injected fault. The worker imports torch and the implementation in
one process and forks a child per side, so a module must never patch torch when it is
imported: that would break the reference side too. Instead ``_fault.exports`` gives each module
a PEP 562 ``__getattr__`` that forwards every name to torch and, on the first access made in a
process other than the one that imported the module (that is, in the forked child of the side
under test), installs the fault by monkeypatching torch in that child only. With
``--isolation none`` there is no child, so no fault is ever installed. A standalone replay
script (``conformance replay --script``) imports its engine in its own process: run it with
``BROKEN_STANDALONE=1`` in the environment to have the fault installed there.

Faults that follow a behaviour (used with the small cases of ``selfcheck``):

* ``drop_warning``: reading ``.grad`` of a non-leaf does not warn;
* ``message_changed``: the "backward through the graph a second time" error says "twice";
* ``wrong_exception_type``: that error is a ValueError instead of a RuntimeError;
* ``no_accumulation``: backward overwrites ``.grad`` of the leaves instead of adding to it;
* ``perturb_far`` / ``perturb_near``: backward adds 1e-3 (beyond the float32 tolerance) /
  2e-6 (within it) to every leaf's ``.grad``;
* ``grad_results_off``: ``torch.autograd.grad`` adds 1e-3 to every gradient it returns (the
  operator cases' gradients);
* ``hang``: backward sleeps forever;
* ``exit_in_backward`` / ``sigkill_in_backward`` / ``segfault_in_backward``: backward ends
  its own process with ``os._exit(3)`` / SIGKILL / SIGSEGV;
* ``no_retain_grad`` / ``no_retains_grad``: ``Tensor.retain_grad`` / ``Tensor.retains_grad``
  do not exist;
* ``prints_differently``: tensors print as ``Tensor(...)``;
* ``no_autograd_grad``: ``torch.autograd.grad`` does not exist (gradients through ``.backward()``
  only); ``no_autograd_grad_wrong_sin``: the same, and ``sin``'s gradient has the wrong sign.
* ``forward_ad_tangent_off``: ``torch.autograd.forward_ad.unpack_dual`` returns the tangent scaled
  by 1 + 1e-3 (the forward-mode topics' Jacobian-vector products).
* ``functional_jacobian_transposed``: ``torch.autograd.functional.jacobian`` returns every block
  transposed (``input.shape + output.shape``), and so ``hessian``'s blocks between two inputs;
  ``functional_hvp_ignores_v``: ``torch.autograd.functional.hvp`` checks ``v``, then returns
  the Hessian's product with ones.

Faults that follow a case, for runs of the real catalog (the ``BROKEN_CASES`` environment
variable names the case ids, comma-separated; every other case behaves as on torch):

* ``print_in_case``: prints a line when the scenario first uses the namespace;
* ``crash_in_case``: dies by SIGSEGV there;
* ``hang_in_case``: sleeps forever there.

``selfcheck`` is not an implementation: it holds the self-test cases, in their own registry.
"""
