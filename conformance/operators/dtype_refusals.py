"""Where torch 2.13.0+cpu refuses an operator case in a dtype (CPU): case id -> dtype -> the step it
raised at and torch's exception. Written by ``probe_dtypes`` (do not edit by hand; run it again after
changing the table). The items run all the same: their verdict compares torch's exception with the
implementation's.
"""

TORCH_REFUSES: dict[str, dict[str, str]] = {
    'op.abs.default': {
        'complex128': (
            "after '4: vmap-of-vjp: the members that running alone gives other results': Runt"
            'imeError: In-place abs is not supported for complex tensors.'
        ),
        'complex64': (
            "after '4: vmap-of-vjp: the members that running alone gives other results': Runt"
            'imeError: In-place abs is not supported for complex tensors.'
        ),
    },
    'op.adaptive_avg_pool2d.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "adaptive_avg_pool2d" not implement'
            "ed for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "adaptive_avg_pool2d" not implement'
            "ed for 'ComplexFloat'"
        ),
    },
    'op.amax.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "max_values_cpu" not implemented fo'
            "r 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "max_values_cpu" not implemented fo'
            "r 'ComplexFloat'"
        ),
    },
    'op.amin.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "min_values_cpu" not implemented fo'
            "r 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "min_values_cpu" not implemented fo'
            "r 'ComplexFloat'"
        ),
    },
    'op.arange.decimal_step': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "arange_cpu" not implemented for \'C'
            "omplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "arange_cpu" not implemented for \'C'
            "omplexFloat'"
        ),
    },
    'op.arange.default': {
        'complex128': (
            'after \'1: torch.arange(5, device=rec.device)\': NotImplementedError: "arange_cpu"'
            " not implemented for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'1: torch.arange(5, device=rec.device)\': NotImplementedError: "arange_cpu"'
            " not implemented for 'ComplexFloat'"
        ),
    },
    'op.argmax.default': {
        'complex128': (
            "after 'the first step': RuntimeError: argmax(): does not support complex input"
        ),
        'complex64': (
            "after 'the first step': RuntimeError: argmax(): does not support complex input"
        ),
    },
    'op.argmin.default': {
        'complex128': (
            "after 'the first step': RuntimeError: argmin(): does not support complex input"
        ),
        'complex64': (
            "after 'the first step': RuntimeError: argmin(): does not support complex input"
        ),
    },
    'op.atan2.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "atan2_cpu" not implemented for \'Co'
            "mplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "atan2_cpu" not implemented for \'Co'
            "mplexFloat'"
        ),
    },
    'op.avg_pool2d.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "avg_pool2d" not implemented for \'C'
            "omplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "avg_pool2d" not implemented for \'C'
            "omplexFloat'"
        ),
    },
    'op.batch_norm.eval': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "batch_norm" not implemented for \'C'
            "omplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "batch_norm" not implemented for \'C'
            "omplexFloat'"
        ),
    },
    'op.batch_norm.training': {
        'bfloat16': (
            "after '4: gradients of x': RuntimeError: mixed dtype (CPU): expect parameter to "
            'have scalar type of Float'
        ),
        'complex128': (
            'after \'the first step\': NotImplementedError: "batch_norm" not implemented for \'C'
            "omplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "batch_norm" not implemented for \'C'
            "omplexFloat'"
        ),
        'float16': (
            "after '4: gradients of x': RuntimeError: mixed dtype (CPU): expect parameter to "
            'have scalar type of Float'
        ),
    },
    'op.bilinear.default': {
        'complex128': (
            "after 'the first step': RuntimeError: _trilinear does not support automatic diff"
            'erentiation for outputs with complex dtype.'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: _trilinear does not support automatic diff"
            'erentiation for outputs with complex dtype.'
        ),
    },
    'op.binary_cross_entropy.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "binary_cross_entropy" not implemen'
            "ted for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "binary_cross_entropy" not implemen'
            "ted for 'ComplexFloat'"
        ),
    },
    'op.binary_cross_entropy_with_logits.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "log_sigmoid_cpu" not implemented f'
            "or 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "log_sigmoid_cpu" not implemented f'
            "or 'ComplexFloat'"
        ),
    },
    'op.ceil.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: ceil is not supported for complex i"
            'nputs'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: ceil is not supported for complex i"
            'nputs'
        ),
    },
    'op.celu.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "elu_cpu" not implemented for \'Comp'
            "lexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "elu_cpu" not implemented for \'Comp'
            "lexFloat'"
        ),
    },
    'op.clamp.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
    },
    'op.clamp.tensor_bounds': {
        'complex128': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
    },
    'op.clip.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
    },
    'op.complex.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Expected both inputs to be Half, Float or "
            'Double tensors but got BFloat16 and BFloat16'
        ),
        'complex128': (
            "after 'the first step': RuntimeError: Expected both inputs to be Half, Float or "
            'Double tensors but got ComplexDouble and ComplexDouble'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: Expected both inputs to be Half, Float or "
            'Double tensors but got ComplexFloat and ComplexFloat'
        ),
    },
    'op.cosine_similarity.default': {
        'complex128': (
            "after 'the first step': RuntimeError: expected common dtype to be floating point"
            ', yet common dtype is ComplexDouble'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: expected common dtype to be floating point"
            ', yet common dtype is ComplexFloat'
        ),
    },
    'op.cross_entropy.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "log_softmax_lastdim_kernel_impl" n'
            "ot implemented for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "log_softmax_lastdim_kernel_impl" n'
            "ot implemented for 'ComplexFloat'"
        ),
    },
    'op.cross_entropy.options': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "log_softmax_lastdim_kernel_impl" n'
            "ot implemented for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "log_softmax_lastdim_kernel_impl" n'
            "ot implemented for 'ComplexFloat'"
        ),
    },
    'op.div.rounding_mode': {
        'complex128': (
            "after '1: vmap: the members that running alone gives other results': NotImplemen"
            'tedError: "div_trunc_cpu" not implemented for \'ComplexDouble\''
        ),
        'complex64': (
            "after '1: vmap: the members that running alone gives other results': NotImplemen"
            'tedError: "div_trunc_cpu" not implemented for \'ComplexFloat\''
        ),
    },
    'op.elu.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "elu_cpu" not implemented for \'Comp'
            "lexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "elu_cpu" not implemented for \'Comp'
            "lexFloat'"
        ),
    },
    'op.embedding.default': {
        'complex128': (
            "after 'the first step': RuntimeError: embedding does not support automatic diffe"
            'rentiation for outputs with complex dtype.'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: embedding does not support automatic diffe"
            'rentiation for outputs with complex dtype.'
        ),
    },
    'op.erf.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "erf_vml_cpu" not implemented for \''
            "ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "erf_vml_cpu" not implemented for \''
            "ComplexFloat'"
        ),
    },
    'op.erfc.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "erfc_vml_cpu" not implemented for '
            "'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "erfc_vml_cpu" not implemented for '
            "'ComplexFloat'"
        ),
    },
    'op.fft_fft.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_fft.sizes': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_fft2.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_fft2.sizes': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_fftn.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_fftn.sizes': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_ifft.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_ifft.sizes': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_irfft.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_irfft.sizes': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_rfft.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'complex128': (
            "after 'the first step': RuntimeError: rfft expects a real input tensor, but got "
            'ComplexDouble'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: rfft expects a real input tensor, but got "
            'ComplexFloat'
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.fft_rfft.sizes': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Unsupported dtype BFloat16"
        ),
        'complex128': (
            "after 'the first step': RuntimeError: rfft expects a real input tensor, but got "
            'ComplexDouble'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: rfft expects a real input tensor, but got "
            'ComplexFloat'
        ),
        'float16': (
            "after 'the first step': RuntimeError: Unsupported dtype Half"
        ),
    },
    'op.floor.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: floor is not supported for complex "
            'inputs'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: floor is not supported for complex "
            'inputs'
        ),
    },
    'op.fmod.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "fmod_cpu" not implemented for \'Com'
            "plexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "fmod_cpu" not implemented for \'Com'
            "plexFloat'"
        ),
    },
    'op.frac.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "frac_cpu" not implemented for \'Com'
            "plexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "frac_cpu" not implemented for \'Com'
            "plexFloat'"
        ),
    },
    'op.ge.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "ge_cpu" not implemented for \'Compl'
            "exDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "ge_cpu" not implemented for \'Compl'
            "exFloat'"
        ),
    },
    'op.gelu.exact': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "GeluKernelImpl" not implemented fo'
            "r 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "GeluKernelImpl" not implemented fo'
            "r 'ComplexFloat'"
        ),
    },
    'op.gelu.tanh': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "GeluKernelImpl" not implemented fo'
            "r 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "GeluKernelImpl" not implemented fo'
            "r 'ComplexFloat'"
        ),
    },
    'op.getitem.mask': {
        'complex128': (
            "after '2: vmap-of-vjp: the members that running alone gives other results': NotI"
            'mplementedError: "gt_cpu" not implemented for \'ComplexDouble\''
        ),
        'complex64': (
            "after '2: vmap-of-vjp: the members that running alone gives other results': NotI"
            'mplementedError: "gt_cpu" not implemented for \'ComplexFloat\''
        ),
    },
    'op.group_norm.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "GroupNormKernelImpl" not implement'
            "ed for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "GroupNormKernelImpl" not implement'
            "ed for 'ComplexFloat'"
        ),
    },
    'op.gt.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "gt_cpu" not implemented for \'Compl'
            "exDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "gt_cpu" not implemented for \'Compl'
            "exFloat'"
        ),
    },
    'op.hardsigmoid.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "hardsigmoid_cpu" not implemented f'
            "or 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "hardsigmoid_cpu" not implemented f'
            "or 'ComplexFloat'"
        ),
    },
    'op.hardswish.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "hardswish_cpu" not implemented for'
            " 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "hardswish_cpu" not implemented for'
            " 'ComplexFloat'"
        ),
    },
    'op.hardtanh.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
    },
    'op.huber_loss.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "huber_cpu" not implemented for \'Co'
            "mplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "huber_cpu" not implemented for \'Co'
            "mplexFloat'"
        ),
    },
    'op.imag.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: imag is not implemented for tensors with n"
            'on-complex dtypes.'
        ),
        'float16': (
            "after 'the first step': RuntimeError: imag is not implemented for tensors with n"
            'on-complex dtypes.'
        ),
        'float32': (
            "after 'the first step': RuntimeError: imag is not implemented for tensors with n"
            'on-complex dtypes.'
        ),
        'float64': (
            "after 'the first step': RuntimeError: imag is not implemented for tensors with n"
            'on-complex dtypes.'
        ),
    },
    'op.kl_div.default': {
        'complex128': (
            "after 'the first step': RuntimeError: kl_div: Complex inputs not supported."
        ),
        'complex64': (
            "after 'the first step': RuntimeError: kl_div: Complex inputs not supported."
        ),
    },
    'op.layer_norm.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "LayerNormKernelImpl" not implement'
            "ed for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "LayerNormKernelImpl" not implement'
            "ed for 'ComplexFloat'"
        ),
    },
    'op.le.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "le_cpu" not implemented for \'Compl'
            "exDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "le_cpu" not implemented for \'Compl'
            "exFloat'"
        ),
    },
    'op.leaky_relu.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "leaky_relu_cpu" not implemented fo'
            "r 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "leaky_relu_cpu" not implemented fo'
            "r 'ComplexFloat'"
        ),
    },
    'op.log_softmax.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "log_softmax_lastdim_kernel_impl" n'
            "ot implemented for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "log_softmax_lastdim_kernel_impl" n'
            "ot implemented for 'ComplexFloat'"
        ),
    },
    'op.logsigmoid.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "log_sigmoid_cpu" not implemented f'
            "or 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "log_sigmoid_cpu" not implemented f'
            "or 'ComplexFloat'"
        ),
    },
    'op.lt.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "lt_cpu" not implemented for \'Compl'
            "exDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "lt_cpu" not implemented for \'Compl'
            "exFloat'"
        ),
    },
    'op.max.dim': {
        'complex128': (
            "after 'the first step': RuntimeError: max(): does not support complex input"
        ),
        'complex64': (
            "after 'the first step': RuntimeError: max(): does not support complex input"
        ),
    },
    'op.max.full': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "max_all" not implemented for \'Comp'
            "lexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "max_all" not implemented for \'Comp'
            "lexFloat'"
        ),
    },
    'op.max_pool2d.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "max_pool2d" not implemented for \'C'
            "omplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "max_pool2d" not implemented for \'C'
            "omplexFloat'"
        ),
    },
    'op.maximum.broadcast': {
        'complex128': (
            "after 'the first step': RuntimeError: maximum not implemented for complex tensor"
            's.'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: maximum not implemented for complex tensor"
            's.'
        ),
    },
    'op.maximum.default': {
        'complex128': (
            "after 'the first step': RuntimeError: maximum not implemented for complex tensor"
            's.'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: maximum not implemented for complex tensor"
            's.'
        ),
    },
    'op.min.dim': {
        'complex128': (
            "after 'the first step': RuntimeError: min(): does not support complex input"
        ),
        'complex64': (
            "after 'the first step': RuntimeError: min(): does not support complex input"
        ),
    },
    'op.min.full': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "min_all" not implemented for \'Comp'
            "lexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "min_all" not implemented for \'Comp'
            "lexFloat'"
        ),
    },
    'op.minimum.default': {
        'complex128': (
            "after 'the first step': RuntimeError: minimum not implemented for complex tensor"
            's.'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: minimum not implemented for complex tensor"
            's.'
        ),
    },
    'op.mish.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "mish_cpu" not implemented for \'Com'
            "plexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "mish_cpu" not implemented for \'Com'
            "plexFloat'"
        ),
    },
    'op.mse_loss.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "mse_cpu" not implemented for \'Comp'
            "lexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "mse_cpu" not implemented for \'Comp'
            "lexFloat'"
        ),
    },
    'op.nll_loss.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "nll_loss_out_frame" not implemente'
            "d for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "nll_loss_out_frame" not implemente'
            "d for 'ComplexFloat'"
        ),
    },
    'op.polar.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: Expected both inputs to be Half, Float or "
            'Double tensors but got BFloat16 and BFloat16'
        ),
        'complex128': (
            "after 'the first step': RuntimeError: Expected both inputs to be Half, Float or "
            'Double tensors but got ComplexDouble and ComplexDouble'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: Expected both inputs to be Half, Float or "
            'Double tensors but got ComplexFloat and ComplexFloat'
        ),
        'float16': (
            'after \'the first step\': NotImplementedError: "polar_cpu" not implemented for \'Ha'
            "lf'"
        ),
    },
    'op.relu.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
    },
    'op.relu6.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: clamp is not supported for complex "
            'types'
        ),
    },
    'op.remainder.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "remainder_cpu" not implemented for'
            " 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "remainder_cpu" not implemented for'
            " 'ComplexFloat'"
        ),
    },
    'op.resolve_neg.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: imag is not implemented for tensors with n"
            'on-complex dtypes.'
        ),
        'float16': (
            "after 'the first step': RuntimeError: imag is not implemented for tensors with n"
            'on-complex dtypes.'
        ),
        'float32': (
            "after 'the first step': RuntimeError: imag is not implemented for tensors with n"
            'on-complex dtypes.'
        ),
        'float64': (
            "after 'the first step': RuntimeError: imag is not implemented for tensors with n"
            'on-complex dtypes.'
        ),
    },
    'op.round.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "round_vml_cpu" not implemented for'
            " 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "round_vml_cpu" not implemented for'
            " 'ComplexFloat'"
        ),
    },
    'op.selu.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "elu_cpu" not implemented for \'Comp'
            "lexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "elu_cpu" not implemented for \'Comp'
            "lexFloat'"
        ),
    },
    'op.sign.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: Unlike NumPy, torch.sign is not int"
            'ended to support complex numbers. Please use torch.sgn instead.'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: Unlike NumPy, torch.sign is not int"
            'ended to support complex numbers. Please use torch.sgn instead.'
        ),
    },
    'op.silu.default': {
        'complex128': (
            "after 'the first step': RuntimeError: silu does not support automatic differenti"
            'ation for outputs with complex dtype.'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: silu does not support automatic differenti"
            'ation for outputs with complex dtype.'
        ),
    },
    'op.smooth_l1_loss.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "smooth_l1_cpu" not implemented for'
            " 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "smooth_l1_cpu" not implemented for'
            " 'ComplexFloat'"
        ),
    },
    'op.softmax.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "softmax_lastdim_kernel_impl" not i'
            "mplemented for 'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "softmax_lastdim_kernel_impl" not i'
            "mplemented for 'ComplexFloat'"
        ),
    },
    'op.softplus.default': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "softplus_cpu" not implemented for '
            "'ComplexDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "softplus_cpu" not implemented for '
            "'ComplexFloat'"
        ),
    },
    'op.trunc.default': {
        'complex128': (
            "after 'the first step': NotImplementedError: trunc is not supported for complex "
            'inputs'
        ),
        'complex64': (
            "after 'the first step': NotImplementedError: trunc is not supported for complex "
            'inputs'
        ),
    },
    'op.view_as_complex.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: view_as_complex is only supported for half"
            ', float and double tensors, but got a tensor of scalar type: BFloat16'
        ),
        'complex128': (
            "after 'the first step': RuntimeError: view_as_complex is only supported for half"
            ', float and double tensors, but got a tensor of scalar type: ComplexDouble'
        ),
        'complex64': (
            "after 'the first step': RuntimeError: view_as_complex is only supported for half"
            ', float and double tensors, but got a tensor of scalar type: ComplexFloat'
        ),
    },
    'op.view_as_real.default': {
        'bfloat16': (
            "after 'the first step': RuntimeError: view_as_real is only supported for complex"
            ' tensors'
        ),
        'float16': (
            "after 'the first step': RuntimeError: view_as_real is only supported for complex"
            ' tensors'
        ),
        'float32': (
            "after 'the first step': RuntimeError: view_as_real is only supported for complex"
            ' tensors'
        ),
        'float64': (
            "after 'the first step': RuntimeError: view_as_real is only supported for complex"
            ' tensors'
        ),
    },
    'op.where.default': {
        'complex128': (
            "after '4: vmap-of-vjp: the members that running alone gives other results': NotI"
            'mplementedError: "gt_cpu" not implemented for \'ComplexDouble\''
        ),
        'complex64': (
            "after '4: vmap-of-vjp: the members that running alone gives other results': NotI"
            'mplementedError: "gt_cpu" not implemented for \'ComplexFloat\''
        ),
    },
    'op.where.nan_branch': {
        'complex128': (
            'after \'the first step\': NotImplementedError: "gt_cpu" not implemented for \'Compl'
            "exDouble'"
        ),
        'complex64': (
            'after \'the first step\': NotImplementedError: "gt_cpu" not implemented for \'Compl'
            "exFloat'"
        ),
    },
}
