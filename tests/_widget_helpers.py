"""Helpers of the headless widget tests: a comm that counts what a widget sends, the graph
payload's schema check, a fake clock for the redraw throttle, sample functions."""

from __future__ import annotations

import json
import pathlib
import typing

import comm
import comm.base_comm
import pytest

import jupyter_autograd as torch
from jupyter_autograd.jupyter import widget_core

SCHEMA = json.loads(
    (pathlib.Path(widget_core.__file__).parents[1] / "schema" / "graph-v2.schema.json").read_text()
)


class CountingComm(comm.base_comm.BaseComm):
    """Records every message a widget would send to the frontend."""

    sent: typing.ClassVar[list] = []

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        CountingComm.sent.append((self.comm_id, msg_type, data or {}))


@pytest.fixture(name="comms")
def comms_fixture(monkeypatch):
    CountingComm.sent = []
    monkeypatch.setattr(comm, "create_comm", lambda **kw: CountingComm(**kw))
    return CountingComm.sent


def messages_from(sent, widget, method=None):
    return [
        d
        for cid, t, d in sent
        if cid == widget.model_id
        and t == "comm_msg"
        and (method is None or d.get("method") == method)
    ]


def valid_payload(payload: dict) -> dict:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(payload, SCHEMA)
    json.dumps(payload)  # JSON-safe
    return payload


def displayed(out) -> list[dict]:
    return [o["data"] for o in out.outputs]


def sample_loss():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    loss = (x * w).sum() + w.pow(2).sum()
    return x, w, loss


def f_r2_r3(x):
    return torch.stack([x[0] * x[1], torch.sin(x[0]), x[1] ** 2])


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0
        self.queue: list = []

    def __call__(self) -> float:
        return self.t

    def schedule(self, delay, cb):
        self.queue.append((self.t + delay, cb))
        return True

    def advance(self, dt: float) -> None:
        self.t += dt
        due = [q for q in self.queue if q[0] <= self.t]
        self.queue = [q for q in self.queue if q[0] > self.t]
        for _, cb in due:
            cb()
