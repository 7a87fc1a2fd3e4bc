"""``torch.distributions``: Normal, Categorical and Bernoulli, with torch's sampling (the same
random numbers after manual_seed), log_prob, entropy, validation and reprs."""

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .normal import Normal

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "constraints"]
