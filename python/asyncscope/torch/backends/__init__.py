"""torch.backends of the PyTorch edition: the switches programs set
(cudnn.benchmark, cudnn.deterministic, cuda.matmul.allow_tf32, ...) are
plain attributes here, kept and read back, with no effect on the engine
(its GPU products are FP32 through cuBLAS, without TF32); mps and mkldnn
report that they are not available.

Threading: any.
"""

import types as _types

from .. import cuda as _cuda_module

cudnn = _types.ModuleType("torch.backends.cudnn", "cuDNN's switches: kept, with no effect here.")
cudnn.enabled = True
cudnn.benchmark = False
cudnn.deterministic = False
cudnn.allow_tf32 = True
cudnn.is_available = lambda: False
cudnn.version = lambda: None

cuda = _types.ModuleType("torch.backends.cuda", "CUDA's switches: kept, with no effect here.")
cuda.matmul = _types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True)
cuda.is_built = lambda: _cuda_module.is_available()

mps = _types.ModuleType("torch.backends.mps", "Apple's Metal backend: not in this edition.")
mps.is_available = lambda: False
mps.is_built = lambda: False

mkldnn = _types.ModuleType("torch.backends.mkldnn", "oneDNN's switch: kept, with no effect here.")
mkldnn.enabled = True
mkldnn.is_available = lambda: False

__all__ = ["cudnn", "cuda", "mps", "mkldnn"]
