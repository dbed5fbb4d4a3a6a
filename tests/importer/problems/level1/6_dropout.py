import torch
import torch.nn as nn


class Model(nn.Module):
    """Dropout in training mode over a sequence: random, so not a reference."""

    def __init__(self, p):
        super().__init__()
        self.dropout = nn.Dropout(p)

    def forward(self, tokens):
        return self.dropout(tokens).sum(dim=1)


batch_size, sequence, width = 8, 64, 32
p = 0.3


def get_inputs():
    return [torch.randn(batch_size, sequence, width)]


def get_init_inputs():
    return [p]
