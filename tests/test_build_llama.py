"""scripts/build_llama.py: explicit instruction sets (never AMX, never -march=native), and a
build whose one-token smoke test dies is replaced by the baseline build."""

import importlib.util
import json
import sys

import pytest

from tests.conftest import REPO

spec = importlib.util.spec_from_file_location("build_llama", REPO / "scripts" / "build_llama.py")
build_llama = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_llama)

AMX_CPU = (
    "flags\t\t: fpu sse2 avx avx2 fma f16c bmi2 avx512f avx512bw avx512vl avx512dq avx512cd "
    + ("avx512_vnni avx512vbmi avx512_bf16 avx_vnni amx_tile amx_int8 amx_bf16\n")
)
AVX512F_ONLY = "flags\t\t: fpu sse2 avx avx2 fma f16c bmi2 avx512f\n"
AVX2_CPU = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma f16c bmi2\n"


def test_an_amx_cpu_gets_the_avx512_family_and_never_amx():
    sets = build_llama.instruction_sets(build_llama.cpu_flags(AMX_CPU))
    assert sets == [*build_llama.BASELINE, *build_llama.OPTIONAL]
    args = build_llama.cmake_args(sets)
    assert "-DGGML_NATIVE=OFF" in args and "-DGGML_AVX512_BF16=ON" in args
    assert "AMX_TILE=ON" not in args and "-DGGML_AMX_TILE=OFF" in args and "march" not in args


def test_an_avx2_cpu_gets_the_baseline():
    assert build_llama.instruction_sets(build_llama.cpu_flags(AVX2_CPU)) == build_llama.BASELINE
    # GGML_AVX512 compiles for F, BW, VL, DQ and CD: F alone is not enough
    assert build_llama.instruction_sets(build_llama.cpu_flags(AVX512F_ONLY)) == build_llama.BASELINE


@pytest.fixture
def fake_build(tmp_path, monkeypatch):
    """A recording installer, and a model runner that segfaults on any AVX-512 build (as the
    AMX-advertising CPUs here do on a native build)."""
    installed = tmp_path / "installed.txt"
    monkeypatch.setattr(build_llama, "STAMP", tmp_path / "stamp.json")
    monkeypatch.setattr(build_llama, "cpu_flags", lambda cpuinfo=None: set(AMX_CPU.split()))
    builds = []

    def installer(args):
        builds.append(args)
        installed.write_text(args)

    runner = [
        sys.executable,
        "-c",
        (
            "import os, signal, sys; "
            "os.kill(os.getpid(), signal.SIGSEGV) if 'AVX512=ON' in open(sys.argv[1]).read() else None"
        ),
        str(installed),
    ]
    return builds, runner, installer


def test_a_build_that_dies_is_replaced_by_the_baseline(fake_build, tmp_path, capsys):
    builds, runner, installer = fake_build
    assert build_llama.install(installer) == [*build_llama.BASELINE, *build_llama.OPTIONAL]
    sets = build_llama.check(tmp_path / "model.gguf", installer, runner)
    assert sets == build_llama.BASELINE
    assert len(builds) == 2 and "AVX512=ON" in builds[0] and "AVX512" not in builds[1]
    out = capsys.readouterr().out
    assert "died on a one-token generation (killed by signal 11" in out
    assert "baseline, after the fallback); smoke test passed" in out
    stamp = json.loads(build_llama.STAMP.read_text())
    assert stamp["sets"] == build_llama.BASELINE and stamp["checked"]
    # the next setup keeps the baseline (no rebuild, no second crash) and skips the smoke test
    assert build_llama.install(installer) == build_llama.BASELINE
    assert build_llama.check(tmp_path / "model.gguf", None, runner) == build_llama.BASELINE
    assert len(builds) == 2


def test_a_baseline_build_that_dies_stops_setup_with_the_reason(fake_build, tmp_path):
    _, _, installer = fake_build
    build_llama.build(build_llama.BASELINE, build_llama.BASELINE, "test", installer)
    faulting = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
    with pytest.raises(SystemExit, match="baseline llama.cpp build cannot run .*signal 11"):
        build_llama.check(tmp_path / "model.gguf", installer, faulting)


def test_a_smoke_test_that_fails_without_faulting_is_not_a_build_problem(fake_build, tmp_path):
    builds, _, installer = fake_build
    build_llama.install(installer)
    broken_model = [sys.executable, "-c", "import sys; sys.exit('cannot load model')"]
    with pytest.raises(SystemExit, match="smoke test failed .*cannot load model"):
        build_llama.check(tmp_path / "model.gguf", installer, broken_model)
    assert len(builds) == 1  # no pointless rebuild


def test_new_build_flags_here_mean_a_new_build(fake_build, monkeypatch):
    builds, _, installer = fake_build
    build_llama.install(installer)
    build_llama.install(installer)
    assert len(builds) == 1
    monkeypatch.setattr(build_llama, "BASELINE", [*build_llama.BASELINE, "SSE42"])
    build_llama.install(installer)
    assert len(builds) == 2 and "-DGGML_SSE42=ON" in builds[1]
