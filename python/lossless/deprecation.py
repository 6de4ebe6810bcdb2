"""Keyword arguments renamed, kept working for one release with a warning."""

from __future__ import annotations

import functools
import warnings


def renamed_kwargs(**renames: str):
    """`@renamed_kwargs(set="overrides")`: a call with `set=` works as `overrides=` and warns.

    The old names shadowed Python builtins (`set`, `zip`) inside the functions and in callers'
    minds; they go in the release after 0.1."""

    def wrap(f):
        @functools.wraps(f)
        def call(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{f.__name__}(): give `{new}=`, not both `{old}=` and `{new}=`")
                    warnings.warn(f"{f.__name__}(): `{old}=` is deprecated, use `{new}=`", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return f(*args, **kwargs)

        return call

    return wrap
