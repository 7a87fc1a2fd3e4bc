"""``Module.state_dict`` / ``load_state_dict``: what a checkpoint holds of a module tree and how
it is copied back, with torch's key names and error messages."""

from __future__ import annotations

from collections import OrderedDict, namedtuple

from ...grad_mode import no_grad
from ...tensor import Tensor
from ..parameter import Parameter

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
_IncompatibleKeys.__repr__ = lambda self: (
    "<All keys matched successfully>"
    if not self.missing_keys and not self.unexpected_keys
    else f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"
)


class StateDictMixin:
    """The state-dict half of :class:`Module` (it reads ``_parameters``, ``_buffers``,
    ``_modules`` and ``_non_persistent_buffers_set``, which Module sets up)."""

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An ordered dict of every parameter and persistent buffer, keyed by dotted name.

        Values are detached tensors sharing memory with the module (``keep_vars=True`` keeps the
        Parameters themselves), as torch.
        """
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        return destination

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy values from ``state_dict`` into this module's parameters and buffers.

        Raises:
            RuntimeError: ``Error(s) in loading state_dict for <Name>`` listing missing and
                unexpected keys (when ``strict``) and size mismatches, as torch.
        """
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        own = {}
        for mp, mod in self.named_modules():
            pre = mp + "." if mp else ""
            for name, p in mod._parameters.items():
                if p is not None:
                    own[pre + name] = (mod, name, p, True)
            for name, b in mod._buffers.items():
                if b is not None and name not in mod._non_persistent_buffers_set:
                    own[pre + name] = (mod, name, b, False)
        for key, (mod, name, t, is_param) in own.items():
            if key not in state_dict:
                missing.append(key)
                continue
            v = state_dict[key]
            if not isinstance(v, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(v)}"
                )
                continue
            if v.shape != t.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {v.shape} from "
                    f"checkpoint, the shape in current model is {t.shape}."
                )
                continue
            if assign:
                if is_param:
                    mod._parameters[name] = Parameter(v, t.requires_grad)
                else:
                    mod._buffers[name] = v
            else:
                with no_grad():
                    t.copy_(v)
        for key in state_dict:
            if key not in own:
                unexpected.append(key)
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected)
                    ),
                )
            if missing:
                errors.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing)
                    ),
                )
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    self.__class__.__name__, "\n\t".join(errors)
                )
            )
        return _IncompatibleKeys(missing, unexpected)
