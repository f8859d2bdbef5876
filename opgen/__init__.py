"""opgen: operator specs in, CANN / PyTorch / TensorFlow code and simulator kernels out."""

__version__ = "0.1.0"
