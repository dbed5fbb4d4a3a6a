import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Cross entropy of masked logits: int64 targets and a bool mask."""

    def __init__(self):
        super().__init__()

    def forward(self, logits, targets, mask):
        return F.cross_entropy(logits * mask, targets)


batch_size = 128
num_classes = 10


def get_inputs():
    logits = torch.rand(batch_size, num_classes)
    targets = torch.randint(0, num_classes, (batch_size,))
    mask = torch.randint(0, 2, (batch_size, num_classes)).bool()
    return [logits, targets, mask]


def get_init_inputs():
    return []
