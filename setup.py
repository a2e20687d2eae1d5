"""The compiled kernels of the games' rules: one C extension per file in games/native/.

Each is optional: where no compiler is present, or one fails to build, pip installs the
pure-Python rules alone and `arbiter.games._native.kernel` answers None.
"""

from pathlib import Path

from setuptools import Extension, setup

KERNELS = sorted(Path("games/native").glob("*.c"))

setup(
    ext_modules=[
        Extension(
            f"arbiter.games._{source.stem}_c",
            sources=[str(source)],
            extra_compile_args=["-O2"],
            optional=True,
        )
        for source in KERNELS
    ]
)
