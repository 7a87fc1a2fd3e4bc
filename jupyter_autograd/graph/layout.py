"""A layered layout in near-linear time, for the static SVG (no Graphviz).

Layers by longest path to a sink, barycentre ordering sweeps over each node's direct
neighbours, then greedy non-overlapping placement pulled towards the neighbours. An edge that
spans several layers is drawn directly (no dummy node per layer crossed), so the work is
O((nodes + edges) log nodes) per sweep, whatever the edges span: a weight shared by every
step of a 1 000-step loop costs 1 000 edges, not a million dummy nodes.
"""

from __future__ import annotations

GAP = 24.0
LAYER_GAP = 40.0
SWEEPS = 4


def layered(sizes: list, edges: list, direction: str = "forward", rankdir: str = "TB"):
    """Boxes for nodes of ``sizes`` [(width, height)] joined by ``edges`` [(source, target)].

    Returns:
        ``(boxes, (width, height))``: per node ``(x, y, w, h)`` of its box.

    Example:
        >>> boxes, size = layered([(40, 20), (40, 20)], [(0, 1)])
        >>> [b[1] for b in boxes], size
        ([0.0, 60.0], (40.0, 80.0))
    """
    n = len(sizes)
    outs: list = [[] for _ in range(n)]
    ins: list = [[] for _ in range(n)]
    for s, t in edges:
        if s != t:
            outs[s].append(t)
            ins[t].append(s)
    # rank = longest path to a sink (roots at 0), so inputs sit next to their consumer
    rank = [0] * n
    remaining = [len(o) for o in outs]
    queue = [v for v in range(n) if remaining[v] == 0]
    for v in queue:
        for u in ins[v]:
            rank[u] = max(rank[u], rank[v] + 1)
            remaining[u] -= 1
            if remaining[u] == 0:
                queue.append(u)
    maxr = max(rank) if n else 0
    level = [maxr - r for r in rank] if direction == "forward" else rank[:]
    for v in range(n):
        if not ins[v] and not outs[v]:
            level[v] = 0  # an unconnected tensor reads as an input, at the start
    nlev = max(level) + 1 if n else 0
    layers: list = [[] for _ in range(nlev)]
    for v in range(n):
        layers[level[v]].append(v)
    neighbours = [outs[v] + ins[v] for v in range(n)]
    pos = [0.0] * n
    for layer in layers:
        for k, v in enumerate(layer):
            pos[v] = k
    for sweep in range(SWEEPS):
        rng = range(1, nlev) if sweep % 2 == 0 else range(nlev - 2, -1, -1)
        for lv in rng:
            layer = layers[lv]
            keyed = []
            for k, v in enumerate(layer):
                nb = [u for u in neighbours[v] if (level[u] < lv) == (sweep % 2 == 0)]
                keyed.append((sum(pos[u] for u in nb) / len(nb) if nb else pos[v], k, v))
            keyed.sort()
            layers[lv] = [v for _, _, v in keyed]
            for k, v in enumerate(layers[lv]):
                pos[v] = k
    lr = rankdir == "LR"
    # along a layer = "breadth", across = "depth"
    size = [(h, w) if lr else (w, h) for w, h in sizes]
    centre = [0.0] * n
    for sweep in range(3):
        order = range(nlev) if sweep != 1 else range(nlev - 1, -1, -1)
        for lv in order:
            end = None
            for v in layers[lv]:
                if sweep == 1:
                    nb = [u for u in neighbours[v] if level[u] > lv]
                else:
                    nb = [u for u in neighbours[v] if level[u] < lv] if (sweep or lv) else ()
                want = (
                    sum(centre[u] for u in nb) / len(nb)
                    if nb
                    else (centre[v] if sweep else (end or 0.0))
                )
                half = size[v][0] / 2
                c = max(want, end + GAP + half) if end is not None else max(want, half)
                centre[v] = c
                end = c + half
    depth = []
    y = 0.0
    for layer in layers:
        d = max((size[v][1] for v in layer), default=0.0)
        depth.append((y, d))
        y += d + LAYER_GAP
    lo = min((centre[v] - size[v][0] / 2 for v in range(n)), default=0.0)
    boxes = []
    for v in range(n):
        y0, d = depth[level[v]]
        b0 = centre[v] - size[v][0] / 2 - lo
        dd = size[v][1]
        yy = y0 + (d - dd) / 2
        boxes.append((yy, b0, dd, size[v][0]) if lr else (b0, yy, size[v][0], dd))
    breadth = max((centre[v] + size[v][0] / 2 - lo for v in range(n)), default=0.0)
    total_depth = y - LAYER_GAP if nlev else 0.0
    return boxes, (total_depth, breadth) if lr else (breadth, total_depth)
