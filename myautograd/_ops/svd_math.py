"""The derivatives of the reduced singular value decomposition of real matrices, ``A = U diag(S) Vh``
(``LinalgSvdBackward0``, which the nuclear norm records), written over ``F`` so that they run on arrays
in a plain backward and are recorded under ``create_graph``.

``svd_backward`` is the gradient of ``A`` for the gradients of the outputs that got one, as torch's
``svd_backward`` composes it: with only ``S``'s, ``U diag(gS) Vh``; with ``U``'s or ``Vh``'s, the
skew-symmetric parts of ``U^T gU`` and ``V^T gV`` over the differences of the squared singular values,
plus the part of a tall ``U`` (a wide ``V``) outside the span of the other. ``svd_jvp`` is its
forward-mode rule (torch's ``linalg_svd_jvp``): with ``dP = U^T dA V``, ``dS`` is ``dP``'s diagonal,
``dU`` and ``dV`` are ``U`` and ``V`` times the matching skew-symmetric parts, and a tall matrix's ``dU``
gains ``(I - U U^T) dA V / S`` (a wide matrix is handled as its transpose). Both are unique only where
the singular values are distinct and nonzero, as torch's.
"""

from __future__ import annotations

import numpy as np


def _eye(F, like):
    """A boolean identity mask of ``like``'s last two (equal) dimensions."""
    return F.constant(np.eye(like.shape[-1], dtype=bool), like)


def _squares_apart(F, S):
    """``E[i, j] = S[j]^2 - S[i]^2``, 1 on the diagonal (where nothing divides by it)."""
    squares = S * S
    differences = F.unsqueeze(squares, -2) - F.unsqueeze(squares, -1)
    return F.where(_eye(F, differences), 1, differences)


def svd_backward(F, gU, gS, gVh, U, S, Vh):
    """The gradient of ``A`` for the gradients of ``U``, ``S`` and ``Vh`` (None: no gradient)."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        return F.matmul(U, F.unsqueeze(gS, -1) * Vh) if m >= n else F.matmul(U * F.unsqueeze(gS, -2), Vh)
    V = F.mT(Vh)
    gV = None if gVh is None else F.mT(gVh)
    E = _squares_apart(F, S)
    if gU is not None:
        UhgU = F.matmul(F.mT(U), gU)
        UhgU = UhgU - F.mT(UhgU)
    if gV is not None:
        VhgV = F.matmul(F.mT(V), gV)
        VhgV = VhgV - F.mT(VhgV)
    if gU is not None and gV is not None:
        gA = (UhgU * F.unsqueeze(S, -2) + F.unsqueeze(S, -1) * VhgV) / E
    elif gU is not None:
        gA = (UhgU / E) * F.unsqueeze(S, -2)
    else:
        gA = F.unsqueeze(S, -1) * (VhgV / E)
    if gS is not None:
        gA = gA + F.where(_eye(F, gA), F.unsqueeze(gS, -1), 0)
    if m > n and gU is not None:
        gUSinv = gU / F.unsqueeze(S, -2)
        gA = F.matmul(U, gA) + gUSinv - F.matmul(U, F.matmul(F.mT(U), gUSinv))
        return F.matmul(gA, Vh)
    if m < n and gV is not None:
        gVSinv = F.mT(gV / F.unsqueeze(S, -2))
        gA = F.matmul(gA, Vh) + gVSinv - F.matmul(F.matmul(gVSinv, V), Vh)
        return F.matmul(U, gA)
    return F.matmul(U, F.matmul(gA, Vh)) if m >= n else F.matmul(F.matmul(U, gA), Vh)


def svd_jvp(tangents, values, F):
    """The tangents of ``U``, ``S`` and ``Vh`` for the tangent of ``A``."""
    dA, U, S, Vh = tangents[0], values["result0"], values["result1"], values["result2"]
    wide = U.shape[-2] < Vh.shape[-1]
    if wide:  # A^T = V diag(S) U^T: the same rule on the transpose, with U and V exchanged
        dA, U, Vh = F.mT(dA), F.mT(Vh), F.mT(U)
    V = F.mT(Vh)
    dP = F.matmul(F.matmul(F.mT(U), dA), V)
    dS = F.diagonal(dP, 0, -2, -1)
    E = _squares_apart(F, S)
    eye = _eye(F, dP)
    dU = F.matmul(U, F.where(eye, 0, (dP * F.unsqueeze(S, -2) + F.unsqueeze(S, -1) * F.mT(dP)) / E))
    dV = F.matmul(V, F.where(eye, 0, (F.unsqueeze(S, -1) * dP + F.mT(dP) * F.unsqueeze(S, -2)) / E))
    if U.shape[-2] > V.shape[-2]:  # tall: the part of dA V outside the span of U
        dAV = F.matmul(dA, V)
        dU = dU + (dAV - F.matmul(U, F.matmul(F.mT(U), dAV))) / F.unsqueeze(S, -2)
    if wide:
        return [dV, dS, F.mT(dU)]
    return [dU, dS, F.mT(dV)]
