"""The compiled parts: the games' rules kernels (games/native/NAME.c) and the agents' searches
(agents/native/NAME.c, each on its game's rules header). One C extension per file.

Each is optional: where no compiler is present, or one fails to build, pip installs the
pure-Python rules and search alone; `arbiter.games._native.kernel` then answers None, and the
agents search in Python.
"""

from pathlib import Path

from setuptools import Extension, setup

KERNELS = sorted(Path("games/native").glob("*.c"))
SEARCHES = sorted(Path("agents/native").glob("*.c"))
HEADERS = ["games/native", "agents/native"]
RULES_HEADERS = sorted(str(header) for header in Path("games/native").glob("*.h"))
SEARCH_HEADERS = RULES_HEADERS + sorted(str(header) for header in Path("agents/native").glob("*.h"))
"""What each extension includes, so that a changed header rebuilds it."""

setup(
    ext_modules=[
        *(
            Extension(
                f"arbiter.games._{source.stem}_c",
                sources=[str(source)],
                depends=RULES_HEADERS,
                extra_compile_args=["-O2"],
                optional=True,
            )
            for source in KERNELS
        ),
        *(
            Extension(
                f"arbiter.agents._search_{source.stem}_c",
                sources=[str(source)],
                include_dirs=HEADERS,
                depends=SEARCH_HEADERS,
                extra_compile_args=["-O2"],
                optional=True,
            )
            for source in SEARCHES
        ),
    ]
)
