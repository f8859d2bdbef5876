"""Trains a small model built from opgen custom ops under DistributedDataParallel (gloo, two
processes) with the seed's registration pattern, and checks it against one-process training.

    .venv/bin/python examples/ddp_train.py [--steps 20]

Every rank defines the torch ops (importing `opgen_ops.torch.<op>` is per process, like any
Python module), but the kernels are registered with the runtime only where RANK == "0"; after
a barrier every rank calls the ops, and the others find the kernels in the op package
directory (OPGEN_OPP_PATH) that rank 0 installed them into.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated" / "python"
if str(GENERATED) not in sys.path:
    sys.path.insert(0, str(GENERATED))

OPS = ("broadcast_add", "layer_norm", "leaky_relu", "softmax")
FEATURES, HIDDEN, CLASSES, BATCH = 8, 16, 8, 32


def load_torch_ops() -> Any:
    """Define the torch ops in this process (every rank); returns the ops module namespace."""
    import opgen_ops.torch as ops

    for op in OPS:
        ops.load(op)
    return ops


class Net(nn.Module):
    """Linear -> broadcast_add (bias) -> layer_norm -> leaky_relu -> Linear -> softmax."""

    def __init__(self) -> None:
        super().__init__()
        from opgen_ops.torch import broadcast_add, layer_norm, leaky_relu, softmax

        self.ops = (broadcast_add.OP, layer_norm.OP, leaky_relu.OP, softmax.OP)
        self.fc1 = nn.Linear(FEATURES, HIDDEN, bias=False)
        self.bias = nn.Parameter(torch.zeros(HIDDEN))
        self.gamma = nn.Parameter(torch.ones(HIDDEN))
        self.beta = nn.Parameter(torch.zeros(HIDDEN))
        self.fc2 = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        add, norm, relu, softmax = self.ops
        h = add(self.fc1(x), self.bias)
        h = norm(h, self.gamma, self.beta)[0]
        h = relu(h, negative_slope=0.1)
        return softmax(self.fc2(h))


def data() -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(BATCH, FEATURES, generator=gen)
    labels = (x @ torch.randn(FEATURES, CLASSES, generator=gen)).argmax(dim=1)
    return x, labels


def loss_of(probs: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return -torch.log(probs.gather(1, labels[:, None])).mean()


def new_model() -> Net:
    torch.manual_seed(0)
    return Net()


def train(model: nn.Module, x: torch.Tensor, labels: torch.Tensor,
          steps: int) -> tuple[list[float], dict[str, torch.Tensor]]:
    """SGD steps; returns the losses and the gradients of the first step."""
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    losses: list[float] = []
    first: dict[str, torch.Tensor] = {}
    for step in range(steps):
        opt.zero_grad()
        loss = loss_of(model(x), labels)
        loss.backward()
        if step == 0:
            first = {n.removeprefix("module."): p.grad.detach().clone()
                     for n, p in model.named_parameters() if p.grad is not None}
        opt.step()
        losses.append(float(loss.detach()))
    return losses, first


def train_single(steps: int) -> dict[str, Any]:
    """One process, the whole batch: the reference for the DDP run."""
    import opgen_ops

    for op in OPS:
        opgen_ops.register(op)
    load_torch_ops()
    model = new_model()
    x, labels = data()
    losses, grads = train(model, x, labels, steps)
    return {"losses": losses, "grads": grads, "params": model.state_dict()}


def _worker(rank: int, world: int, port: int, opp_dir: str, out: str, steps: int) -> None:
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port), OPGEN_OPP_PATH=opp_dir)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        if os.environ.get("RANK", "0") == "0":  # the seed's pattern: register only once
            import opgen_ops

            for op in OPS:
                opgen_ops.register(op)
        dist.barrier()
        load_torch_ops()
        model = nn.parallel.DistributedDataParallel(new_model())
        x, labels = data()
        per_rank = BATCH // world
        shard = slice(rank * per_rank, (rank + 1) * per_rank)
        losses, grads = train(model, x[shard], labels[shard], steps)
        if rank == 0:
            torch.save({"losses": losses, "grads": grads,
                        "params": model.module.state_dict()}, out)
        dist.barrier()
    finally:
        dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def train_ddp(steps: int, workdir: Path, world: int = 2) -> dict[str, Any]:
    """Runs `world` gloo workers with a fresh op package directory; rank 0's results."""
    opp_dir = workdir / "opp"
    opp_dir.mkdir(parents=True, exist_ok=True)
    out = workdir / "ddp.pt"
    mp.spawn(_worker, args=(world, free_port(), str(opp_dir), str(out), steps), nprocs=world,
             join=True)
    result: dict[str, Any] = torch.load(str(out))
    return result


def compare(ddp: dict[str, Any], single: dict[str, Any], atol: float = 1e-5) -> list[str]:
    """Differences between the DDP and one-process runs (empty when they agree)."""
    problems = []
    for kind in ("grads", "params"):
        for name, value in single[kind].items():
            other = ddp[kind][name]
            if not torch.allclose(other, value, atol=atol, rtol=1e-4):
                diff = (other - value).abs().max().item()
                problems.append(f"{kind} of {name} differ by up to {diff:.3g}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="opgen-ddp-") as tmp:
        ddp = train_ddp(args.steps, Path(tmp))
        os.environ["OPGEN_OPP_PATH"] = str(Path(tmp) / "opp")
        single = train_single(args.steps)
    print(f"DDP loss (2 processes):  {ddp['losses'][0]:.4f} -> {ddp['losses'][-1]:.4f}")
    print(f"one-process loss:        {single['losses'][0]:.4f} -> {single['losses'][-1]:.4f}")
    problems = compare(ddp, single)
    for p in problems:
        print("MISMATCH:", p)
    if not problems:
        print("gradients and parameters match one-process training")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
