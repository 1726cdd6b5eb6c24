"""Shape-only kernels that torch 1.13 lacks for fake-tensor tracing.

Without a Meta kernel for aten::convolution_backward, FakeTensorMode in torch 1.13
silently falls back to running the real convolution on zero-filled tensors: correct
shapes, but tens of seconds per large model. The gradients of a convolution have
exactly the shapes of its input, its weight and its bias, so a Meta kernel that only
allocates them is exact.
"""

import torch

_library = None


def _convolution_backward_meta(grad_output, input, weight, bias_sizes, stride,
                               padding, dilation, transposed, output_padding,
                               groups, output_mask):
    grad_input = input.new_empty(input.shape) if output_mask[0] else None
    grad_weight = weight.new_empty(weight.shape) if output_mask[1] else None
    grad_bias = None
    if output_mask[2] and bias_sizes is not None:
        grad_bias = grad_output.new_empty(bias_sizes)
    return grad_input, grad_weight, grad_bias


def register():
    """Registers the missing Meta kernels once per process (idempotent)."""
    global _library
    if _library is not None:
        return
    library = torch.library.Library("aten", "IMPL", "Meta")
    library.impl("convolution_backward", _convolution_backward_meta)
    _library = library
