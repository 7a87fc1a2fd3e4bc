"""``torch.distributions.constraints``: the sets a distribution's parameters and samples
belong to, with torch's checks and reprs (the ones the distributions here use)."""

from __future__ import annotations

__all__ = [
    "Constraint",
    "boolean",
    "dependent",
    "dependent_property",
    "integer_interval",
    "is_dependent",
    "positive",
    "real",
    "real_vector",
    "simplex",
    "unit_interval",
]


class Constraint:
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )


class _Real(Constraint):
    def check(self, value):
        return value == value  # noqa: PLR0124  (False for NaNs)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound) -> None:
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )


class _IndependentConstraint(Constraint):
    def __init__(self, base_constraint, reinterpreted_batch_ndims) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def event_dim(self) -> int:
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(
            result.shape[: result.dim() - self.reinterpreted_batch_ndims] + (-1,)
        )
        return result.all(-1)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}({self.base_constraint!r}, "
            f"{self.reinterpreted_batch_ndims})"
        )


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


dependent = _Dependent()
dependent_property = _DependentProperty
boolean = _Boolean()
integer_interval = _IntegerInterval
real = _Real()
real_vector = _IndependentConstraint(real, 1)
positive = _GreaterThan(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
