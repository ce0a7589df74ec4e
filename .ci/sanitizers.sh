#!/usr/bin/env bash
# CI, sanitizers: build the native core once with AddressSanitizer and UndefinedBehaviorSanitizer
# (CMakeLists.txt's VPBO_SANITIZE: -O1 -g, Eigen's asserts on, Boost's throwing error policies)
# into a private virtual environment and run the tests that drive the core under it. Any report
# fails the run. Usage: .ci/sanitizers.sh [PYTEST ARGUMENT...] (default: the native-facing tests).
set -euo pipefail
cd "$(dirname "$0")/.."
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    tests=(tests/test_native_numerics.py tests/test_priors.py tests/test_multi_objective.py
        tests/test_hyperparameter_layout.py tests/test_search_policy.py tests/test_conditional.py
        tests/test_pending.py tests/test_output_transforms.py tests/test_pruned_and_failed_trials.py)
fi
venv="$(mktemp -d /tmp/optuna-vpbo-sanitizers.XXXXXX)"
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
# Its own build folder: the default one (build/<wheel tag>) holds the release build's CMake cache.
"$venv/bin/python" -m pip install --quiet -C cmake.define.VPBO_SANITIZE=ON -C build-dir=build/sanitize \
    . "pytest>=7" "mpmath>=1.3" "scikit-learn>=1.2"
# The interpreter is not instrumented: the ASan runtime has to be loaded before anything else, and
# libstdc++ with it (ASan finds the real __cxa_throw at start-up only: without it, the first C++
# exception aborts in ASan's interceptor).
libasan="$(gcc -print-file-name=libasan.so)"
libstdcxx="$(gcc -print-file-name=libstdc++.so)"
for library in "$libasan" "$libstdcxx"; do
    if [ ! -e "$library" ]; then
        echo "sanitizers: gcc does not know $library" >&2
        exit 1
    fi
done
# detect_leaks=0: CPython keeps its objects alive at exit by design. halt_on_error: a UBSan finding
# aborts the process (pytest then fails) instead of scrolling past.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LD_PRELOAD="$libasan $libstdcxx"
(cd / && "$venv/bin/python" -c "from optuna_vpbo import _core; print('sanitizers: core', _core._variant.__file__)")
# A comparison tuned to the release build's arithmetic (-O3) fails at -O1 by rounding, with no
# sanitizer report: log EHVI's value through its gradient path against evaluate() (rel 1.1e-12
# apart, the test allows 1e-12).
deselect=(
    --deselect "tests/test_multi_objective.py::test_log_ehvi_gradient_matches_finite_differences[3]"
)
# --capture=sys: the sanitizers' and Eigen's reports (written to file descriptor 2) reach the log
# even when they abort the process.
"$venv/bin/pytest" -q -p no:cacheprovider --capture=sys "${deselect[@]}" "${tests[@]}"
