import torch
import torch.nn as nn


class Model(nn.Module):
    """A sort, which the op library does not have."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sort(x, dim=-1).values


batch_size = 16
features = 128


def get_inputs():
    return [torch.rand(batch_size, features)]


def get_init_inputs():
    return []
