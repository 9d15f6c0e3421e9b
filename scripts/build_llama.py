"""Build llama-cpp-python for the CPU it runs on, and prove the build runs (stdlib only: it
runs before the project is installed).

    python scripts/build_llama.py install          # build with this CPU's instruction sets
    python scripts/build_llama.py check MODEL.gguf # one-token generation in a subprocess;
                                                   # if it dies, rebuild with the baseline

Never `-march=native`: some CPUs here advertise AMX that the virtual machine does not
enable, and ggml's AMX kernels then die at their first `ldtilecfg`. The build uses explicit
flags instead: the AVX2/FMA/F16C baseline, plus the AVX-512 family only where /proc/cpuinfo
shows it. pip caches wheels by version, not by flags, so every build is `--no-cache-dir` and a
stamp in the venv records which build is installed.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

VERSION = "0.3.36"
REQUIREMENT = f"llama-cpp-python[server]=={VERSION}"
BASELINE = ["AVX", "AVX2", "FMA", "F16C", "BMI2"]
# ggml option -> the /proc/cpuinfo flag(s) it needs; AMX is never enabled
AVX512 = [
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512dq",
    "avx512cd",
]  # what GGML_AVX512 compiles for
OPTIONAL = {
    "AVX_VNNI": ["avx_vnni"],
    "AVX512": AVX512,
    "AVX512_VBMI": [*AVX512, "avx512vbmi"],
    "AVX512_VNNI": [*AVX512, "avx512_vnni"],
    "AVX512_BF16": [*AVX512, "avx512_bf16"],
}
STAMP = Path(sys.prefix) / ".rag-llama-build.json"
SMOKE = (  # a 64-token prompt runs the batched matrix kernels, where a wrong ISA faults
    "import sys; from llama_cpp import Llama; "
    "m = Llama(sys.argv[1], n_ctx=256, n_threads=2, verbose=False); "
    "m.create_completion('Hello there. ' * 21, max_tokens=1)"
)
SMOKE_TIMEOUT_S = 600


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def instruction_sets(flags: set[str]) -> list[str]:
    """The ggml options to enable on a CPU with these flags: the baseline plus what it has."""
    return BASELINE + [name for name, needs in OPTIONAL.items() if all(f in flags for f in needs)]


def cmake_args(sets: list[str]) -> str:
    enabled = " ".join(f"-DGGML_{name}=ON" for name in sets)
    return (
        f"-DGGML_NATIVE=OFF {enabled} -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
    )


def read_stamp() -> dict:
    try:
        return json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return {}


def mark_checked(model: Path) -> None:
    STAMP.write_text(json.dumps(read_stamp() | {"checked": str(model)}))


def pip_install(args: str) -> None:
    """Build and install llama-cpp-python with these CMake arguments (never from pip's cache),
    then the server extra's own dependencies (from pip's cache as usual)."""
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    env = os.environ | {"CMAKE_ARGS": args, "FORCE_CMAKE": "1"}
    subprocess.run(
        [*pip, "--no-cache-dir", "--force-reinstall", "--no-deps", REQUIREMENT], env=env, check=True
    )
    subprocess.run([*pip, REQUIREMENT], check=True)


def build(sets: list[str], wanted: list[str], reason: str, installer=pip_install) -> None:
    """Install a build with `sets`, recording what this CPU wanted (to tell when to rebuild)."""
    print(f"Building llama.cpp ({reason}): {' '.join(sets)} (no AMX, not -march=native)...")
    installer(cmake_args(sets))
    STAMP.write_text(json.dumps({"version": VERSION, "wanted": cmake_args(wanted), "sets": sets}))


def install(installer=pip_install) -> list[str]:
    """Build for this CPU unless the installed build was made for what this CPU wants now (a
    new CPU, a new version or new flags here rebuild it)."""
    stamp, wanted = read_stamp(), instruction_sets(cpu_flags())
    if stamp.get("version") == VERSION and stamp.get("wanted") == cmake_args(wanted):
        return stamp["sets"]  # may be the baseline after a crash: keep it, don't retry
    build(wanted, wanted, "for this CPU", installer)
    return wanted


def smoke(model: Path, command: list[str] | None = None) -> str | None:
    """None when a one-token generation works in a fresh process, else how it died."""
    command = command or [sys.executable, "-c", SMOKE, str(model)]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=SMOKE_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return f"killed: no token within {SMOKE_TIMEOUT_S} s"
    if result.returncode == 0:
        return None
    if result.returncode > 0:  # a Python error (a broken model file?), not a faulting build
        raise SystemExit(f"The llama.cpp smoke test failed on {model}: {result.stderr[-300:]}")
    return f"killed by signal {-result.returncode}: {result.stderr.strip()[-300:]}"


def check(model: Path, installer=pip_install, command: list[str] | None = None) -> list[str]:
    """Prove the installed build runs the model; if it dies, rebuild with the baseline."""
    stamp = read_stamp()
    sets = stamp.get("sets") or install(installer)
    if stamp.get("checked") == str(model):
        print(f"llama.cpp build: {' '.join(sets)} (GGML_NATIVE=OFF, no AMX); smoke-tested")
        return sets
    failure = smoke(model, command)
    if failure is None:
        mark_checked(model)
        print(f"llama.cpp build: {' '.join(sets)} (GGML_NATIVE=OFF, no AMX); smoke test passed")
        return sets
    if sets == BASELINE:
        raise SystemExit(f"The baseline llama.cpp build cannot run {model} ({failure}).")
    print(f"The llama.cpp build {' '.join(sets)} died on a one-token generation ({failure}).")
    build(BASELINE, instruction_sets(cpu_flags()), "fallback to the baseline", installer)
    failure = smoke(model, command)
    if failure is not None:
        raise SystemExit(f"The baseline llama.cpp build cannot run {model} ({failure}).")
    mark_checked(model)
    print(
        f"llama.cpp build: {' '.join(BASELINE)} (baseline, after the fallback); smoke test passed"
    )
    return BASELINE


if __name__ == "__main__":
    if sys.argv[1:2] == ["install"]:
        install()
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 3:
        check(Path(sys.argv[2]))
    else:
        raise SystemExit(__doc__)
