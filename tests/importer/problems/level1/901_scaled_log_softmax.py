import torch
import torch.nn as nn


class Model(nn.Module):
    """Log-softmax of a scaled input along the dim given at construction."""

    def __init__(self, dim, scale):
        super().__init__()
        self.dim = dim
        self.scale = scale

    def forward(self, x):
        return torch.log_softmax(x * self.scale, dim=self.dim)


batch_size = 64
features = 1000
dim = 1
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [dim, scale]
