"""The native core: imports, once, the build of it that this CPU runs fastest.

The default build compiles the whole C++ core several times as extension modules
``optuna_vpbo._core_<variant>``: ``baseline`` (x86-64 with SSE2, or the compiler's default on other
architectures), ``avx2`` (AVX2, FMA, BMI1/2, F16C) and ``avx512`` (AVX-512 F/CD/DQ/BW/VL, where the
compiler supports it). A build with ``VPBO_NATIVE_ARCH=ON`` holds one variant, ``native``
(``-march=native``). This module picks the first variant in that order of speed that is built
and whose instructions the CPU reports (Linux: the ``flags`` of ``/proc/cpuinfo``; elsewhere only
``baseline`` and ``native``), and re-exports its names, so ``from optuna_vpbo import _core`` is
the same module for every caller. ``VPBO_INSTRUCTION_SET=<variant>`` forces one variant.
``INSTRUCTION_SET`` names the variant imported.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import platform
from types import ModuleType

ENVIRONMENT_VARIABLE = "VPBO_INSTRUCTION_SET"
# Fastest first. Each variant needs these CPU flags (names as in /proc/cpuinfo): the instructions
# the compiler may emit under the variant's flags in CMakeLists.txt.
_AVX2_FLAGS = frozenset({"avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "popcnt", "sse4_2"})
REQUIRED_CPU_FLAGS: dict[str, frozenset[str]] = {
    "native": frozenset(),  # built for the machine it runs on
    "avx512": _AVX2_FLAGS | {"avx512f", "avx512cd", "avx512dq", "avx512bw", "avx512vl"},
    "avx2": _AVX2_FLAGS,
    "baseline": frozenset(),
}
_X86_64_MACHINES = ("x86_64", "amd64", "x64")


def cpu_flags(cpuinfo: pathlib.Path = pathlib.Path("/proc/cpuinfo")) -> frozenset[str]:
    """The instruction-set flags the Linux kernel reports for the first CPU (empty where there is
    no /proc/cpuinfo, so that only the variants without requirements run)."""
    try:
        with cpuinfo.open(encoding="ascii", errors="replace") as lines:
            for line in lines:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def supported_variants(flags: frozenset[str], machine: str | None = None) -> list[str]:
    """The variants, fastest first, whose instructions a CPU with ``flags`` runs."""
    machine = (machine or platform.machine()).lower()
    return [
        name
        for name, required in REQUIRED_CPU_FLAGS.items()
        if required <= flags and (not required or machine in _X86_64_MACHINES)
    ]


def _source_checkout_error(package_dir: pathlib.Path) -> ImportError:
    """The error when ``optuna_vpbo`` comes from a folder without any compiled core."""
    if (package_dir.parent / "pyproject.toml").is_file() and (package_dir.parent / "native").is_dir():
        return ImportError(
            f"optuna_vpbo is being imported from its source checkout ({package_dir}), which holds no "
            "compiled core: the repository root is on sys.path (for example `python` or `python -m pytest` "
            "started in the repository) and shadows the installed package. Run from another folder, or use "
            "the `pytest` console script, or `python -P` (Python >= 3.11), or install in place with "
            "`pip install -e .`."
        )
    return ImportError(
        f"no compiled core of optuna_vpbo in {package_dir} (optuna_vpbo/_core_<variant> extension "
        "modules): reinstall the package, for example `pip install --force-reinstall optuna-vpbo`."
    )


def _import_variant(name: str) -> ModuleType | None:
    """The variant's module, or None if it is not built."""
    module_name = f"{__package__}._core_{name}"
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        return None


def _load() -> tuple[str, ModuleType]:
    """The forced variant, else the fastest built one the CPU runs."""
    supported = supported_variants(cpu_flags())
    forced = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if forced:
        if forced not in REQUIRED_CPU_FLAGS:
            raise ImportError(f"{ENVIRONMENT_VARIABLE}={forced!r}: expected one of {', '.join(REQUIRED_CPU_FLAGS)}")
        if forced not in supported:
            raise ImportError(f"{ENVIRONMENT_VARIABLE}={forced}: this CPU does not report the instructions it needs")
        module = _import_variant(forced)
        if module is None:
            raise ImportError(f"{ENVIRONMENT_VARIABLE}={forced}: optuna_vpbo was built without this variant")
        return forced, module
    for name in supported:
        module = _import_variant(name)
        if module is not None:
            return name, module
    raise _source_checkout_error(pathlib.Path(__file__).resolve().parent)


INSTRUCTION_SET, _variant = _load()
# Re-export every name of the variant (the classes and functions of the core).
globals().update({name: value for name, value in vars(_variant).items() if not name.startswith("__")})
