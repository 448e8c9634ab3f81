"""``torch.backends.mps``: Apple's Metal backend, which myautograd does not have."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


__all__ = ["is_available", "is_built"]
