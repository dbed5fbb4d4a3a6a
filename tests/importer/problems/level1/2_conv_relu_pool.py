import torch
import torch.nn as nn


class Model(nn.Module):
    """A convolution, ReLU, a max pool and the mean over space."""

    def __init__(self, in_channels, out_channels, kernel_size, pool):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)
        self.pool = nn.MaxPool2d(pool)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.pool(x).mean(dim=[2, 3])


batch_size = 16
in_channels = 3
out_channels = 32
height = width = 64
kernel_size = 3
pool = 2


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, pool]
