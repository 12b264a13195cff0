"""The one compiled part: the exact make-or-set search (``referee/solver/_search.c``) the
strong bot and Python bot authors use.

Everything else is in pyproject.toml. The extension is optional: where no C compiler is found
the install goes on without it, and ``referee.solver`` falls back to its Python search (the
same answers, 30 to 60 times slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "referee.solver._search",
            sources=["referee/solver/_search.c"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        )
    ]
)
