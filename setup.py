"""The one compiled part: the strong bot's make-or-set search (``referee/strong/_solver.c``).

Everything else is in pyproject.toml. The extension is optional: where no C compiler is found
the install goes on without it, and ``referee.strong.solver`` falls back to its Python search
(the same answers, 30 to 60 times slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "referee.strong._solver",
            sources=["referee/strong/_solver.c"],
            extra_compile_args=["-O3", "-std=c99"],
            optional=True,
        )
    ]
)
