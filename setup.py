"""The compiled parts: the exact make-or-set search (``referee/solver/_search.c``) the
strong bot and Python bot authors use, and the rules core (``referee/core/``: ``texas42.h``,
the library, and ``_core.c``, its Python binding).

Everything else is in pyproject.toml. Both extensions are optional: where no C compiler is
found the install goes on without them, ``referee.solver`` falls back to its Python search
(the same answers, 30 to 60 times slower) and ``referee.core`` to the Python rules engine.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "referee.solver._search",
            sources=["referee/solver/_search.c"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        ),
        Extension(
            "referee.core._texas42",
            sources=[
                f"referee/core/{name}.c"
                for name in ("_core", "_batch", "texas42", "deal", "sha256", "batch", "tensors")
            ],
            depends=["referee/core/texas42.h", "referee/core/sha256.h", "referee/core/tensors.h"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        ),
    ]
)
