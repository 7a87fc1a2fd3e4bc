"""``torch.special``: special functions (rows in ``ops/special.py``) and the functions
torch.special shares with the top level.

Example:
    >>> import jupyter_autograd as torch
    >>> torch.special.expit(torch.tensor([0.0]))
    tensor([0.5000])
"""

from __future__ import annotations

from .ops.api import erf, exp, expm1, log1p, log_softmax, logsumexp, round, sigmoid, softmax  # noqa: F401
from .ops.api_math import exp2, logit, sinc, xlog1py, xlogy  # noqa: F401
from .ops.api_special import (  # noqa: F401
    digamma,
    entr,
    erfc,
    erfcx,
    erfinv,
    i0,
    i0e,
    i1,
    i1e,
    igamma,
    igammac,
    lgamma,
    log_ndtr,
    mvlgamma,
    ndtr,
    ndtri,
    polygamma,
    zeta,
)
from .ops.bessel import (  # noqa: F401
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
)
from .ops.polynomials import (  # noqa: F401
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)

psi = digamma
gammaln = lgamma
multigammaln = mvlgamma
gammainc = igamma
gammaincc = igammac

expit = sigmoid
del exp
