import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear, GroupNorm, a bias of the module's own and Hardtanh: a group
    count that must divide the features, a bias shape that must follow them."""

    def __init__(self, in_features, out_features, num_groups, bias_shape):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.norm = nn.GroupNorm(num_groups, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.hardtanh = nn.Hardtanh(min_val=-0.5, max_val=2.0)

    def forward(self, x):
        return self.hardtanh(self.norm(self.gemm(x)) + self.bias)


batch_size = 128
in_features = 512
out_features = 1024
num_groups = 16
bias_shape = (out_features,)


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups, bias_shape]
