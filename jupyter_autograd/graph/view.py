"""What the static exports draw: the payload with big repeated runs folded into ``×k`` blocks.

The SVG, DOT and text exports all draw this view, so they agree with each other and with the
renderer's first paint, and stay bounded: a run is one block, its edges one bundled edge.
"""

from __future__ import annotations

# A run of at least this many nodes is drawn folded (the renderer folds the same ones).
FOLD_MIN_NODES = 24


def folds(repeat: dict) -> bool:
    """Whether a payload repeat is drawn as one block on first paint."""
    listed = repeat["iterations"]
    return len(listed) < repeat["count"] or sum(len(it) for it in listed) >= FOLD_MIN_NODES


class View:
    """Drawn nodes (payload node dicts, or repeat blocks) and edges between them.

    ``edges`` holds ``(source, target, count, edge)``: view indices, how many payload edges it
    stands for (with their own ``count``), and the first payload edge (for grads and slots).
    """

    def __init__(self, payload: dict, fold: bool = True) -> None:
        block_of: dict = {}
        blocks: dict = {}
        if fold:
            for r in payload.get("repeats") or ():
                if folds(r):
                    members = [i for it in r["iterations"] for i in it]
                    block = {
                        "id": r["id"],
                        "kind": "repeat",
                        "label": r["label"],
                        "count": r["count"],
                        "members": members,
                    }
                    blocks[r["id"]] = block
                    for i in members:
                        block_of.setdefault(i, r["id"])
        self.nodes: list = []
        self.index: dict = {}  # payload node id or block id -> view index
        payload_nodes = {n["id"]: n for n in payload["nodes"]}
        for n in payload["nodes"]:
            key = block_of.get(n["id"], n["id"])
            if key in self.index:
                self.index[n["id"]] = self.index[key]
                continue
            self.index[key] = self.index[n["id"]] = len(self.nodes)
            self.nodes.append(blocks.get(key, n))
        for block in blocks.values():
            steps = [payload_nodes[i].get("backward_step") for i in block["members"]]
            steps = [s for s in steps if s is not None]
            if steps:
                block["backward_step"] = min(steps)
        merged: dict = {}
        for e in payload["edges"]:
            s, t = self.index.get(e["source"]), self.index.get(e["target"])
            if s is None or t is None or s == t:
                continue
            hit = merged.get((s, t))
            c = e.get("count", 1)
            merged[(s, t)] = [s, t, c, e] if hit is None else [s, t, hit[2] + c, hit[3]]
        self.edges = [tuple(e) for e in merged.values()]
        self.roots = list(dict.fromkeys(self.index[r] for r in payload["roots"] if r in self.index))
