# One task runner. The README names `make demo` and `make test`; both start from a clean clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test lint typecheck unit regen docs bench clean npu-headers

$(STAMP): pyproject.toml constraints.txt
	@echo "==> installing opgen and its dependencies into $(VENV)/ (first run: a few minutes)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --progress-bar on -q --upgrade pip
	$(BIN)/python -m pip install --progress-bar on -c constraints.txt -e '.[dev,torch,tf]'
	@touch $(STAMP)

# the simulator runtime and the precompiled headers, once per change of opgen or a framework
# (.venv/share/opgen/prebuilt; up to date, it returns at once)
install: $(STAMP)
	@$(BIN)/opgen prebuild

demo: install
	$(BIN)/python examples/demo.py

lint: install
	$(BIN)/ruff check opgen runtime tests benchmarks examples

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/python -m pytest -q

test: lint typecheck unit

regen: install
	$(BIN)/opgen generate

docs: install
	$(BIN)/python -m opgen.spec_reference

bench: install
	$(BIN)/python benchmarks/bench_generate.py
	$(BIN)/python benchmarks/bench_frontend.py
	$(BIN)/python benchmarks/bench_simulator.py
	$(BIN)/python benchmarks/bench_cube.py
	$(BIN)/python benchmarks/bench_registry.py
	$(BIN)/python benchmarks/bench_torch.py
	$(BIN)/python benchmarks/bench_tf.py --write

# The torch-npu wheel's headers (and its torch's, if not the installed one) for the NPU kernels'
# compile check (tests/torch/test_npu_kernel.py), into the user cache or $$OPGEN_CACHE_DIR/npu.
npu-headers: install
	$(BIN)/python -m opgen.npu_headers $(if $(TORCH_NPU_VERSION),--torch-npu-version $(TORCH_NPU_VERSION))

clean:
	rm -rf build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
