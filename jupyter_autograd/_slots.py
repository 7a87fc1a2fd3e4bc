"""What the core calls in the layers above it: each name is set by the module defining it, as the
package loads. The core imports only downward (tests/test_import_hygiene.py), so it reaches these
through this module, never by importing them."""

from __future__ import annotations

#: ops.txp: the namespace of recorded tensor ops a VJP rule runs on under create_graph, and the
#: wrapping of an array into a graph tensor
TXP = None
as_graph_tensor = None
#: factories.as_tensor (a Python number or sequence met by an op) and the legacy
#: ``Tensor(data)`` / ``Tensor(*sizes)`` constructor
as_tensor = None
legacy_tensor_init = None
#: autograd.backward (Tensor.backward) and autograd.forward_ad.propagate (an op's tangents)
backward = None
forward_ad_propagate = None
#: autograd.graph.raw_saved (``node._raw_saved_<name>``)
raw_saved = None
